package io.adreport.launcher.embedded;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.adreport.schema.hbase.HBaseEndpoint;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Sessions: ZooKeeper sessions are long (60 s) because nothing can fail over inside one
 * process; a stop of the threads is not a dead server. Before HBase starts, the ephemeral znodes
 * of the previous run are deleted so that a restart after kill -9 does not wait for their
 * sessions. Should the master or region server abort anyway, {@link #failure()} says so and the
 * local stack stops instead of answering 503 forever.
 *
 * <p>Durability: the WAL is on the local filesystem, where a "sync" is a flush to the OS, not an
 * fsync. Data survives a process crash ({@code kill -9}: WAL replay on restart) but not an OS
 * crash or power loss. A real cluster (HDFS) has neither limit.
 */
public final class EmbeddedHBase implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedHBase.class);
    private static final String LAST_PORT_FILE = "zk.port.last";
    private static final int SESSION_TIMEOUT_MS = 60_000;
    /** HBase's own MemStore-LAB chunk size ({@code hbase.hregion.memstore.mslab.chunksize}). */
    static final int DEFAULT_MSLAB_CHUNK_BYTES = 2 * 1024 * 1024;

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

    /**
     * The MSLAB chunk size for a heap of G1 regions of {@code g1RegionBytes} (0: another
     * collector): HBase's 2 MB, or 1 KB under half a region where that is smaller, so that a
     * chunk (with its array header) is never humongous. A cell larger than
     * {@code hbase.hregion.memstore.mslab.max.allocation} (256 KB) is not copied into a chunk.
     */
    static int mslabChunkBytes(long g1RegionBytes) {
        if (g1RegionBytes <= 0) {
            return DEFAULT_MSLAB_CHUNK_BYTES;
        }
        return (int) Math.min(DEFAULT_MSLAB_CHUNK_BYTES, g1RegionBytes / 2 - 1024);
    }

    /** This JVM's G1 region size in bytes, 0 when it runs another collector. */
    static long g1RegionBytes() {
        boolean g1 = ManagementFactory.getGarbageCollectorMXBeans().stream().anyMatch(b -> b.getName().startsWith("G1 "));
        if (!g1) {
            return 0;
        }
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return hotspot == null ? 0 : Long.parseLong(hotspot.getVMOption("G1HeapRegionSize").getValue());
    }

    public static EmbeddedHBase start(Path dataDir, Duration timeout) throws IOException, InterruptedException {
        return start(dataDir, timeout, Duration.ofMinutes(2));
    }

    /**
     * @param nonceGrace how long the region server remembers an Increment's nonce (see below);
     *                   longer than any client retries one operation
     */
    public static EmbeddedHBase start(Path dataDir, Duration timeout, Duration nonceGrace) throws IOException, InterruptedException {
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
        // ZooKeeper, master and region server share this process: a session can only "expire"
        // because the process was starved (a long GC pause, a saturated machine), and then the
        // master and region server abort, leaving ingest and reports answering 503 until a
        // restart. So sessions are long; a restart after kill -9 does not wait for them (below).
        conf.setInt("zookeeper.session.timeout", SESSION_TIMEOUT_MS);
        conf.setInt("hbase.zookeeper.property.maxSessionTimeout", SESSION_TIMEOUT_MS);
        conf.setInt("hbase.zookeeper.property.tickTime", 1_000);
        conf.setInt("hbase.master.start.timeout.localHBaseCluster", (int) timeout.toMillis());
        conf.setInt("hbase.regionserver.handler.count", 30);
        // Reads never queue behind writes: the region server's call queues and handlers are split
        // between writes (the aggregator's raw Puts and counter Increments, the reconcile job's
        // corrections) and reads, and the reads again between Gets and Scans. With one shared
        // pool a long flush or a blocked write (memstore pressure) can hold every handler while
        // a report's scans wait. 30 handlers x 0.2 = 6 queues: 3 write (15 handlers), 3 read
        // (15 handlers, 7 of them for scans). A real cluster sets the same three properties in
        // its hbase-site.xml (docs/CLUSTER.md).
        conf.setFloat("hbase.ipc.server.callqueue.handler.factor", 0.2f);
        conf.setFloat("hbase.ipc.server.callqueue.read.ratio", 0.5f);
        conf.setFloat("hbase.ipc.server.callqueue.scan.ratio", 0.5f);
        // One JVM holds HBase, ingest and the report API. The heap budget (bin/adreport starts it
        // with 3 GB): memstores 25%, block cache 15%, the aggregator's counter buffer up to two
        // generations of buffer.max.cells (~100 B a cell: 2M cells ~ 0.2 GB each, ~13%), leaving
        // about half for HBase's own work, ingest parsing, reports and the in-process reconcile
        // job. HBase's defaults (40% + 40%) — and even 30% + 20% in a 2 GB heap — left a back-fill
        // of 2M-cell flushes running the heap full: G1 pauses of seconds that stop every thread,
        // reports and ZooKeeper heartbeats included (docs/BENCHMARKS.md, "Reports during a back-fill").
        conf.setFloat("hbase.regionserver.global.memstore.size", 0.25f);
        conf.setFloat("hfile.block.cache.size", 0.15f);
        // MSLAB chunks: every region being written holds a chunk, and the chunk pool keeps
        // chunks up to the whole memstore budget. HBase's 2 MB chunk is, under G1, a humongous
        // object (at least half a G1 region): in the 2 MB regions of bin/adreport's 3 GB heap it
        // takes two regions, twice what the memstore accounts for, and humongous allocations start
        // concurrent cycles of their own (HBASE-27805). A chunk just under half a region is an
        // ordinary object (docs/benchmarks/2026-12-07-local-heap-mslab-chunks.md).
        conf.setInt("hbase.hregion.memstore.mslab.chunksize", mslabChunkBytes(g1RegionBytes()));
        // Memstore age: the counter tables are pre-split into many regions, each of which sees a
        // trickle of edits, so few ever reach the 128 MB flush size; HBase then flushes an edit
        // only after an hour (the default optional flush interval). In one JVM that keeps up to
        // an hour of edits on the heap (a soak's heap after GC grows until the global memstore
        // limit) and in the WAL, which a restart after kill -9 must replay before serving. Five
        // minutes bounds both; a real cluster keeps its own setting.
        conf.setInt("hbase.regionserver.optionalcacheflushinterval", 300_000);
        // Increment nonces: the region server remembers every Increment's nonce for a grace
        // period, so that a client's retry of the same call is not applied twice. HBase keeps
        // them 30 minutes by default (about 100 bytes each): at the counter flush's ~5,000
        // Increments/s that is over 600 MB of heap growing for half an hour, most of what the
        // soak's heap after GC grew by (docs/RELIABILITY.md). A retry only happens within one
        // call's operation timeout (flush.timeout.ms; the aggregator never resends a failed flush
        // itself), so a grace of twice that timeout protects exactly as much.
        conf.setInt("hbase.server.hashNonce.gracePeriod", (int) Math.min(Integer.MAX_VALUE, nonceGrace.toMillis()));

        MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
        zk.setDefaultClientPort(choosePort(dir.resolve(LAST_PORT_FILE)));
        int port = zk.startup(new File(dir.resolve("zk").toString()));
        conf.set("hbase.zookeeper.quorum", "localhost");
        conf.setInt("hbase.zookeeper.property.clientPort", port);
        Files.writeString(dir.resolve(LAST_PORT_FILE), Integer.toString(port));
        try {
            dropStaleEphemerals(port, conf.get("zookeeper.znode.parent", "/hbase"));
        } catch (IOException | InterruptedException | RuntimeException e) {
            zk.shutdown();
            throw e;
        }

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

    /**
     * Null while the master and the region server run; otherwise what stopped (e.g. a region
     * server that aborted). Nothing inside the process restarts them: the caller should stop.
     */
    public String failure() {
        HMaster master = hbase.getActiveMaster();
        if (master == null || master.isAborted() || master.isStopped()) {
            return "the HBase master " + (master == null ? "is gone" : master.isAborted() ? "aborted" : "stopped");
        }
        for (JVMClusterUtil.RegionServerThread rs : hbase.getRegionServers()) {
            HRegionServer server = rs.getRegionServer();
            if (server.isAborted() || server.isStopped() || !rs.isAlive()) {
                return "the HBase region server " + (server.isAborted() ? "aborted" : "stopped");
            }
        }
        return null;
    }

    /** The running cluster, for tests that break it. */
    LocalHBaseCluster cluster() {
        return hbase;
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

    /**
     * Deletes the ephemeral znodes under {@code parent}, before HBase starts. ZooKeeper's data
     * persists in the data directory, and at this point every ephemeral znode belongs to a
     * session of this data directory's previous process (the port file shows no other stack
     * runs on it): after a kill -9 the dead master's and region server's nodes would otherwise
     * stand until their sessions expire, and the new master would wait for them.
     */
    private static void dropStaleEphemerals(int port, String parent) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper client = new ZooKeeper("localhost:" + port, SESSION_TIMEOUT_MS, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(30, TimeUnit.SECONDS)) {
                throw new IOException("could not connect to the embedded ZooKeeper on port " + port);
            }
            int dropped = dropEphemerals(client, parent);
            if (dropped > 0) {
                LOG.info("removed {} ephemeral znodes left by the previous run", dropped);
            }
        } catch (KeeperException e) {
            throw new IOException("clearing the previous run's ZooKeeper nodes failed: " + e.getMessage(), e);
        } finally {
            client.close();
        }
    }

    private static int dropEphemerals(ZooKeeper client, String path) throws KeeperException, InterruptedException {
        Stat stat = client.exists(path, false);
        if (stat == null) {
            return 0;
        }
        try {
            if (stat.getEphemeralOwner() != 0) {
                client.delete(path, -1);
                return 1;
            }
            int n = 0;
            for (String child : client.getChildren(path, false)) {
                n += dropEphemerals(client, path + "/" + child);
            }
            return n;
        } catch (KeeperException.NoNodeException gone) {
            return 0;
        }
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
