package io.adreport.launcher.local;

import io.adreport.launcher.cli.Args;
import io.adreport.launcher.cli.Context;
import io.adreport.launcher.cli.Settings;
import io.adreport.launcher.embedded.EmbeddedHBase;
import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import io.adreport.schema.table.SchemaApplier;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/adreport local}: the whole product in one process on one machine.
 *
 * <p>Start order: data directory checks, embedded HBase, schema apply, the device-hash secret
 * (generated once into {@code DATA_DIR/device.secret}, mode 600), then the services. Stop order
 * (Ctrl-C / SIGTERM, via a shutdown hook) is the reverse, so the aggregator flushes its buffer
 * into a still-running HBase before HBase stops.
 */
public final class LocalStack {
    private static final Logger LOG = LoggerFactory.getLogger(LocalStack.class);

    public static final ConfigDef DEF = new ConfigDef("Local stack")
            .define("local.hbase.start.timeout.ms", Type.DURATION_MS, "180000", ">= 10000", ConfigDef.atLeast(10_000),
                    "How long the embedded HBase may take to start (a restart after kill -9 replays the WAL)");

    private LocalStack() {
    }

    public static int run(Settings settings, Args args, PrintStream out) throws Exception {
        Context pre = Context.from(settings);
        Path dataDir = pre.core().dataDir().toAbsolutePath().normalize();
        prepareDataDir(dataDir);
        settings.putDefault("device.hash.secret", deviceSecret(dataDir));
        Context ctx = Context.from(settings);
        ConfigDef.Values local = settings.resolve(DEF);

        out.println("adreport: starting embedded HBase in " + dataDir + " ...");
        long t0 = System.nanoTime();
        EmbeddedHBase hbase = EmbeddedHBase.start(dataDir, local.millis("local.hbase.start.timeout.ms"));
        Connection connection = ConnectionFactory.createConnection(hbase.configuration());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("\nadreport: stopping (flushing buffers) ...");
            try {
                // HBase logs its own orderly stop as errors (regions closing under it): not news.
                org.apache.log4j.LogManager.getLogger("org.apache.hadoop").setLevel(org.apache.log4j.Level.OFF);
                org.apache.log4j.LogManager.getLogger("org.apache.zookeeper").setLevel(org.apache.log4j.Level.OFF);
                connection.close();
                hbase.close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("shutdown: {}", e.toString());
            }
            stopped.countDown();
        }, "adreport-shutdown"));

        try (Admin admin = connection.getAdmin()) {
            SchemaApplier.Report report = new SchemaApplier(ctx.layout()).apply(admin, false);
            LOG.info("schema: {} tables created, {} ok, {} with drift", report.count(SchemaApplier.Action.CREATED),
                    report.count(SchemaApplier.Action.OK), report.count(SchemaApplier.Action.DRIFT));
            if (report.hasDrift()) {
                out.println("adreport: WARNING the tables drift from the cube:\n" + report);
            }
        }
        out.printf("adreport: HBase up in %.1f s (ZooKeeper localhost:%d)%n", (System.nanoTime() - t0) / 1e9, hbase.zooKeeperPort());
        out.println("adreport: running; press Ctrl-C to stop.");
        stopped.await();
        return 0;
    }

    private static void prepareDataDir(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create data directory " + dataDir + ": " + e.getMessage()
                    + " (choose another with --data-dir DIR)");
        }
        if (!Files.isWritable(dataDir)) {
            throw new IllegalStateException("data directory " + dataDir + " is not writable (choose another with --data-dir DIR)");
        }
    }

    /** The local device-hash secret, generated once and kept (mode 600) in the data directory. */
    static String deviceSecret(Path dataDir) throws IOException {
        Path file = dataDir.resolve("device.secret");
        if (!Files.exists(file)) {
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            Files.writeString(file, HexFormat.of().formatHex(secret));
            restrict(file);
        }
        return Files.readString(file).trim();
    }

    static void restrict(Path file) {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("cannot restrict permissions of {}: {}", file, e.toString());
        }
    }

}
