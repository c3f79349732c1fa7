package io.adreport.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * One HBase mini cluster (ZooKeeper + master + one region server) on the local filesystem,
 * shared by every test in the JVM. Tests isolate themselves with {@link #freshNamespace}
 * instead of fresh clusters: a cluster start costs ~10 s, a namespace a few milliseconds.
 *
 * <p>Region servers: one, or {@code -Dadreport.minihbase.regionservers=N} for a module whose
 * tests move regions between servers (the fault suite runs with two).
 *
 * <p>Memory: block cache and memstores are capped at a quarter of the test heap (see {@link #start}).
 *
 * <p>No HDFS: its NameNode web server needs Hadoop's Jetty 9, which cannot live beside
 * Javalin's Jetty 11 in one JVM. HBaseTestingUtility already points {@code fs.defaultFS} at the
 * local filesystem and relaxes the stream-capability check for it.
 */
public final class MiniHBase {
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final HBaseTestingUtility util;
    private final Connection connection;

    private MiniHBase(HBaseTestingUtility util, Connection connection) {
        this.util = util;
        this.connection = connection;
    }

    static MiniHBase start() {
        HBaseTestingUtility util = utility();
        Configuration conf = util.getConfiguration();
        conf.setInt("hbase.client.retries.number", 5);
        // The test JVM also runs aggregators, report APIs and local MapReduce jobs (sort
        // buffers of 32 MB per map thread); HBase's defaults (0.4 of the heap for the block
        // cache, 0.4 for memstores of every table every earlier test created) would leave
        // them a fifth of it. Tests read little and write little: a quarter for both.
        // Nor a 2 MB memstore chunk (MSLAB) for each of the hundreds of regions the tests
        // of one JVM create, each holding a few rows: with them the heap filled up.
        conf.setFloat("hfile.block.cache.size", 0.1f);
        conf.setFloat("hbase.regionserver.global.memstore.size", 0.15f);
        conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
        return start(util, Integer.getInteger("adreport.minihbase.regionservers", 1));
    }

    /**
     * Starts the cluster of {@code util} (from {@link #utility()}, settings added as the caller
     * needs) as every mini cluster of this project starts: ZooKeeper, then one master and
     * {@code regionServers} region servers; with a connection. The caller {@link #stop}s it.
     */
    public static MiniHBase start(HBaseTestingUtility util, int regionServers) {
        try {
            util.startMiniZKCluster();
            util.startMiniHBaseCluster(StartMiniClusterOption.builder().numMasters(1).numRegionServers(regionServers).build());
            return new MiniHBase(util, ConnectionFactory.createConnection(util.getConfiguration()));
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the HBase mini cluster", e);
        }
    }

    /**
     * A testing utility set up as every mini cluster of this project is, not started yet: no web
     * UIs (no ports to collide), 30 handlers per region server, Hadoop metrics in mini-cluster
     * mode. Also the harnesses' (module benchmarks), which start their own cluster with it
     * ({@link #start(HBaseTestingUtility, int)}) and HBase's memory defaults.
     */
    public static HBaseTestingUtility utility() {
        org.apache.hadoop.metrics2.lib.DefaultMetricsSystem.setMiniClusterMode(true);
        HBaseTestingUtility util = new HBaseTestingUtility();
        Configuration conf = util.getConfiguration();
        conf.setInt("hbase.master.info.port", -1);
        conf.setInt("hbase.regionserver.info.port", -1);
        conf.setInt("hbase.regionserver.handler.count", 30);
        return util;
    }

    /** Closes the connection and shuts the cluster down. */
    public void stop() {
        try {
            connection.close();
            util.shutdownMiniCluster();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Client configuration for the cluster (a copy: callers may change it). */
    public Configuration configuration() {
        return new Configuration(util.getConfiguration());
    }

    /** The shared connection; do not close it. */
    public Connection connection() {
        return connection;
    }

    /** The ZooKeeper client port. */
    public int zooKeeperPort() {
        return util.getZkCluster().getClientPort();
    }

    /** The underlying utility, for fault injection (e.g. aborting a region server, stopping HBase). */
    public HBaseTestingUtility util() {
        return util;
    }

    /** A namespace name no other test in this JVM has used; tables are created by the caller. */
    public String freshNamespace(String hint) {
        return (hint.replaceAll("[^A-Za-z0-9_]", "_") + "_" + NAMESPACES.incrementAndGet()).toLowerCase();
    }
}
