package io.adreport.benchmarks;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * The region servers' own request counts by table, as the master last heard them
 * ({@code Admin.getClusterMetrics}, each region's {@link RegionMetrics}): {@code RegionRequests ZK_PORT}
 * prints one line per table, {@code table<TAB>read requests<TAB>write requests}, summed over its
 * regions. A write request is one row mutation (a Put, Delete, Increment, Append or the mutation
 * of a checkAndMutate, each row of a batch counted); a read request is one row read (a Get, each
 * row a scan returns, and the read of an Increment or checkAndMutate). Region servers report every
 * {@code hbase.regionserver.msginterval} (3 s): read it 4 s after the writes of interest.
 * The counts are what the server did, whoever asked: independent of the aggregator's own metrics.
 */
public final class RegionRequests {
    private RegionRequests() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: RegionRequests ZK_PORT");
            System.exit(2);
        }
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", "localhost");
        conf.setInt("hbase.zookeeper.property.clientPort", Integer.parseInt(args[0]));
        Map<String, long[]> byTable = new TreeMap<>();
        try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
            ClusterMetrics cluster = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
            for (ServerMetrics server : cluster.getLiveServerMetrics().values()) {
                for (RegionMetrics region : server.getRegionMetrics().values()) {
                    String table = RegionInfo.getTable(region.getRegionName()).getNameAsString();
                    long[] sums = byTable.computeIfAbsent(table, t -> new long[2]);
                    sums[0] += region.getReadRequestCount();
                    sums[1] += region.getWriteRequestCount();
                }
            }
        }
        byTable.forEach((table, sums) -> System.out.println(table + "\t" + sums[0] + "\t" + sums[1]));
    }
}
