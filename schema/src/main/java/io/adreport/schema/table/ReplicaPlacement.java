package io.adreport.schema.table;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BalanceRequest;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;

/**
 * Where the region replicas of a table sit, and a request to the balancer when they share a server.
 *
 * <p>A secondary replica serves timeline reads only when it lives on another region server than
 * its primary. HBase places replicas apart when it creates a table on a cluster with enough
 * servers, but when a region server dies every region it held, replicas too, is reassigned to the
 * servers left; with two region servers both replicas then sit on the survivor, and they stay
 * there after the dead server returns until the balancer runs (every
 * {@code hbase.balancer.period}, 5 minutes by default). {@link #spread} asks the balancer to run
 * now and waits, bounded, until no region has two replicas on one server; {@code schema apply}
 * does this for the tables it replicates and prints the placement.
 */
public final class ReplicaPlacement {

    /**
     * @param regions   regions of the table (primaries)
     * @param servers   region servers holding any replica of them
     * @param colocated regions with two or more replicas on one region server
     * @param live      live region servers in the cluster
     */
    public record Placement(TableName table, int regions, int servers, int colocated, int live) {
        @Override
        public String toString() {
            return String.format("placement %s: %d regions on %d of %d region servers, %d with replicas sharing a server",
                    table.getNameAsString(), regions, servers, live, colocated);
        }
    }

    private ReplicaPlacement() {
    }

    /** The placement as the meta table has it now. */
    public static Placement of(Connection connection, Admin admin, TableName table) throws IOException {
        Map<String, Set<ServerName>> byRegion = new HashMap<>();
        Map<String, Integer> replicas = new HashMap<>();
        Set<ServerName> servers = new HashSet<>();
        List<HRegionLocation> locations;
        try (RegionLocator locator = connection.getRegionLocator(table)) {
            locations = locator.getAllRegionLocations();
        }
        for (HRegionLocation l : locations) {
            if (l == null || l.getRegion() == null) {
                continue;
            }
            String region = primaryKey(l);
            replicas.merge(region, 1, Integer::sum);
            if (l.getServerName() != null) {
                byRegion.computeIfAbsent(region, r -> new HashSet<>()).add(l.getServerName());
                servers.add(l.getServerName());
            }
        }
        int colocated = 0;
        for (Map.Entry<String, Integer> r : replicas.entrySet()) {
            if (byRegion.getOrDefault(r.getKey(), Set.of()).size() < r.getValue()) {
                colocated++;
            }
        }
        int live = admin.getRegionServers().size();
        return new Placement(table, replicas.size(), servers.size(), colocated, live);
    }

    /**
     * When replicas share a server and another live server could take one, asks the balancer to run
     * and waits up to {@code wait} for the replicas to be apart.
     *
     * @return the placement at the end (still colocated when the balancer did not get there in time)
     */
    public static Placement spread(Connection connection, Admin admin, TableName table, Duration wait)
            throws IOException, InterruptedException {
        Placement p = of(connection, admin, table);
        if (p.colocated() == 0 || p.live() < 2) {
            return p;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        long nextAsk = 0;
        while (p.colocated() > 0 && System.nanoTime() < deadline) {
            if (System.nanoTime() >= nextAsk) {
                admin.balance(BalanceRequest.newBuilder().setIgnoreRegionsInTransition(true).build());
                nextAsk = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            }
            Thread.sleep(500);
            p = of(connection, admin, table);
        }
        return p;
    }

    /** The region a replica copies: its primary's encoded name. */
    private static String primaryKey(HRegionLocation l) {
        return RegionReplicaUtil.getRegionInfoForDefaultReplica(l.getRegion()).getEncodedName();
    }
}
