package io.adreport.launcher.embedded;

import io.adreport.schema.hbase.HBaseEndpoint;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;

/**
 * An HBase (ZooKeeper, master, one region server) inside this process, whose data persists in
 * {@code DATA_DIR/hbase} and {@code DATA_DIR/zk}, for the one-machine default.
 *
 * <p>Start-up order: ZooKeeper on a port (the previous one when free, so a restart looks the
 * same to clients), then HBase, then — only once the master is initialized — the port is
 * published in {@code DATA_DIR/zk.port}, so another process never finds a half-started stack.
 * {@link #close()} removes the port file first, then stops HBase (which flushes memstores),
 * then ZooKeeper.
 *
 * <p>Durability: the WAL is on the local filesystem, where a "sync" is a flush to the OS, not an
 * fsync. Data survives a process crash ({@code kill -9}: WAL replay on restart) but not an OS
 * crash or power loss. A real cluster (HDFS) has neither limit.
 */
public final class EmbeddedHBase implements AutoCloseable {
    private static final String LAST_PORT_FILE = "zk.port.last";

    private final Path dataDir;
    private final MiniZooKeeperCluster zk;
    private final LocalHBaseCluster hbase;
    private final Configuration conf;
    private final int zkPort;

    private EmbeddedHBase(Path dataDir, MiniZooKeeperCluster zk, LocalHBaseCluster hbase, Configuration conf, int zkPort) {
        this.dataDir = dataDir;
        this.zk = zk;
        this.hbase = hbase;
        this.conf = conf;
        this.zkPort = zkPort;
    }

    public static EmbeddedHBase start(Path dataDir, Duration timeout) throws IOException, InterruptedException {
        Path dir = dataDir.toAbsolutePath().normalize();
        Files.createDirectories(dir.resolve("hbase"));
        Files.createDirectories(dir.resolve("zk"));
        Path portFile = dir.resolve(HBaseEndpoint.ZK_PORT_FILE);
        Files.deleteIfExists(portFile); // left behind by a kill -9; we are the stack now

        DefaultMetricsSystem.setMiniClusterMode(true);
        Configuration conf = HBaseConfiguration.create();
        conf.setBoolean("hbase.cluster.distributed", false);
        conf.set("hbase.rootdir", dir.resolve("hbase").toUri().toString());
        conf.set("hbase.zookeeper.property.dataDir", dir.resolve("zk").toString());
        conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
        conf.setInt("hbase.master.port", 0);
        conf.setInt("hbase.regionserver.port", 0);
        conf.setInt("hbase.master.info.port", -1);
        conf.setInt("hbase.regionserver.info.port", -1);
        conf.set("hbase.master.hostname", "localhost");
        conf.set("hbase.unsafe.regionserver.hostname", "localhost");
        conf.setInt("zookeeper.session.timeout", 10_000);
        conf.setInt("hbase.zookeeper.property.tickTime", 1_000);
        conf.setInt("hbase.master.start.timeout.localHBaseCluster", (int) timeout.toMillis());
        conf.setInt("hbase.regionserver.handler.count", 30);
        // Reads never queue behind writes: the region server's call queues and handlers are split
        // between writes (the aggregator's raw Puts and counter Increments, the reconcile job's
        // corrections) and reads, and the reads again between Gets and Scans. With one shared
        // pool a long flush or a blocked write (memstore pressure) can hold every handler while
        // a report's scans wait. 30 handlers x 0.2 = 6 queues: 3 write (15 handlers), 3 read
        // (15 handlers, 7 of them for scans). A real cluster sets the same three properties in
        // its hbase-site.xml (README, "Running on a cluster").
        conf.setFloat("hbase.ipc.server.callqueue.handler.factor", 0.2f);
        conf.setFloat("hbase.ipc.server.callqueue.read.ratio", 0.5f);
        conf.setFloat("hbase.ipc.server.callqueue.scan.ratio", 0.5f);
        // One JVM holds HBase, ingest and the report API. The heap budget (bin/adreport starts it
        // with 3 GB): memstores 25%, block cache 15%, the aggregator's counter buffer up to two
        // generations of buffer.max.cells (~100 B a cell: 2M cells ~ 0.2 GB each, ~13%), leaving
        // about half for HBase's own work, ingest parsing, reports and the in-process reconcile
        // job. HBase's defaults (40% + 40%) — and even 30% + 20% in a 2 GB heap — left a back-fill
        // of 2M-cell flushes running the heap full: G1 full collections, a stop of every thread,
        // reports included (docs/BENCHMARKS.md, "Reports during a back-fill").
        conf.setFloat("hbase.regionserver.global.memstore.size", 0.25f);
        conf.setFloat("hfile.block.cache.size", 0.15f);

        MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
        zk.setDefaultClientPort(choosePort(dir.resolve(LAST_PORT_FILE)));
        int port = zk.startup(new File(dir.resolve("zk").toString()));
        conf.set("hbase.zookeeper.quorum", "localhost");
        conf.setInt("hbase.zookeeper.property.clientPort", port);
        Files.writeString(dir.resolve(LAST_PORT_FILE), Integer.toString(port));

        LocalHBaseCluster hbase = new LocalHBaseCluster(conf, 1, 1);
        try {
            hbase.startup();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (hbase.getActiveMaster() == null || !hbase.getActiveMaster().isInitialized()) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("HBase master did not initialize within " + timeout.toSeconds() + " s");
                }
                Thread.sleep(100);
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            hbase.shutdown();
            zk.shutdown();
            throw e;
        }
        Files.writeString(portFile, Integer.toString(port));
        return new EmbeddedHBase(dir, zk, hbase, conf, port);
    }

    /** Client configuration for this HBase. */
    public Configuration configuration() {
        return HBaseEndpoint.local(zkPort);
    }

    public int zooKeeperPort() {
        return zkPort;
    }

    @Override
    public void close() throws IOException {
        Files.deleteIfExists(dataDir.resolve(HBaseEndpoint.ZK_PORT_FILE));
        hbase.shutdown();
        hbase.join();
        zk.shutdown();
    }

    private static int choosePort(Path lastPortFile) throws IOException {
        if (Files.isRegularFile(lastPortFile)) {
            try {
                int last = Integer.parseInt(Files.readString(lastPortFile).trim());
                try (ServerSocket probe = new ServerSocket(last)) {
                    return last;
                } catch (IOException busy) {
                    // fall through to a fresh port
                }
            } catch (NumberFormatException ignored) {
                // fall through
            }
        }
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
