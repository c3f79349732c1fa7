package io.adreport.launcher.local;

import io.adreport.schema.time.UtcDay;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.schema.cube.Cube;
import io.adreport.client.cli.Args;
import io.adreport.launcher.cli.Context;
import io.adreport.launcher.cli.Settings;
import io.adreport.launcher.demo.DemoOptions;
import io.adreport.launcher.demo.DemoCampaigns;
import io.adreport.launcher.demo.DemoTraffic;
import io.adreport.launcher.demo.ServeAdClient;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.launcher.embedded.EmbeddedHBase;
import io.adreport.launcher.cli.Commands;
import io.adreport.launcher.control.ControlServer;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.ReconcileScheduler;
import io.adreport.reconcile.Reconciler;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.http.auth.Role;
import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import io.adreport.schema.metrics.JvmMetrics;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.threads.DaemonThreads;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/adreport local}: the whole product in one process on one machine.
 *
 * <p>Start order: checks (data directory writable, ports free, heap), embedded HBase, schema
 * apply, the device-hash secret and the beacon signing key (generated once into
 * {@code DATA_DIR/device.secret} and {@code DATA_DIR/beacon.secret}, mode 600),
 * the aggregator, the report API, the reconcile scheduler, the demo traffic. Each started part is
 * pushed on a stack; Ctrl-C / SIGTERM (a shutdown hook) closes them in reverse, so the demo stops
 * sending before the aggregator flushes its buffer into a still-running HBase, and HBase stops last.
 */
public final class LocalStack {
    private static final Logger LOG = LoggerFactory.getLogger(LocalStack.class);

    public static final ConfigDef DEF = new ConfigDef("Local stack")
            .define("local.hbase.start.timeout.ms", Type.DURATION_MS, "180000", ConfigDef.atLeast(10_000),
                    "How long the embedded HBase may take to start (a restart after kill -9 replays the WAL)")
            .define("demo.rate", Type.INT, String.valueOf((int) DemoOptions.DEFAULT_RATE), ConfigDef.between(1, 20_000),
                    "Demo traffic, beacons per second averaged over the day (also --demo-rate); the start-up back-fill of "
                    + "today and the two previous days has the same volume, up to "
                    + String.format(Locale.ROOT, "%,d", DemoOptions.DEFAULT_BACKFILL_LIMIT)
                    + " beacons (a higher rate back-fills at a smaller scale)")
            .define("demo.reconcile.backfill", Type.BOOLEAN, "true",
                    "With --demo, reconcile the back-filled days once their traffic is in, so reconciled days show at once");

    private LocalStack() {
    }

    public static int run(Settings settings, Args args, PrintStream out) throws Exception {
        if (args.flag("demo-rate") != null) {
            settings.putDefault("demo.rate", args.flag("demo-rate"));
        }
        Context pre = Context.from(settings);
        if (args.has("demo")) {
            requireDemoCube(pre.cube());
        }
        Path dataDir = pre.core().dataDir().toAbsolutePath().normalize();
        prepareDataDir(dataDir);
        settings.putDefault("device.hash.secret", readOrCreateSecret(dataDir.resolve("device.secret"), 32));
        // The beacon signing key, generated once like the device secret; beacon.keys set by the user wins.
        settings.putDefault("beacon.keys", "local:" + readOrCreateSecret(dataDir.resolve("beacon.secret"), 32));
        Context ctx = Context.from(settings);
        ConfigDef.Values local = settings.resolve(DEF);
        AggregatorConfig aggConfig = AggregatorConfig.from(settings.resolve(AggregatorConfig.DEF));
        ReportConfig reportConfig = ReportConfig.from(settings.resolve(ReportConfig.DEF));
        ReconcileConfig reconcileConfig = ReconcileConfig.from(settings.resolve(ReconcileConfig.DEF));
        checkPort(reportConfig.port(), "--port");
        checkPort(aggConfig.port(), "--ingest-port");
        if (aggConfig.port() != 0) { // the ad server's beacon URLs point at this stack's ingest
            settings.putDefault("serve.beacon.url", "http://localhost:" + aggConfig.port());
        }
        if (Runtime.getRuntime().maxMemory() < 900L << 20) {
            throw new IllegalStateException("too little memory: the JVM may use " + (Runtime.getRuntime().maxMemory() >> 20)
                    + " MB; the local stack needs at least 1 GB (run with ADREPORT_HEAP=2g)");
        }

        Deque<AutoCloseable> started = new java.util.concurrent.LinkedBlockingDeque<>();
        CountDownLatch stopped = new CountDownLatch(1);
        for (String ignored : StopSignal.onStop(stopped::countDown)) {
            out.println("adreport: " + ignored + " was ignored when this process started (a background job of a script?) and stays"
                    + " ignored; stop adreport with " + (ignored.equals("SIGINT") ? "SIGTERM" : "SIGINT (Ctrl-C)"));
        }

        try {
            Duration nonceGrace = aggConfig.flushTimeout().multipliedBy(2);
            return startAndWait(ctx, args, out, dataDir, local, nonceGrace, reportConfig, reconcileConfig, started, stopped);
        } finally {
            // Ctrl-C, SIGTERM or a failed start: stop what runs, newest first, on this thread
            // while HBase is still fully up (JVM shutdown hooks would race Hadoop's own hooks).
            out.println("\nadreport: stopping (flushing buffers) ...");
            closeAll(started);
            out.println("adreport: stopped.");
        }
    }

    private static int startAndWait(Context ctx, Args args, PrintStream out, Path dataDir, ConfigDef.Values local,
                                    Duration nonceGrace, ReportConfig reportConfig, ReconcileConfig reconcileConfig,
                                    Deque<AutoCloseable> started, CountDownLatch stopped) throws Exception {
        Clock clock = Clock.systemUTC();
        out.println("adreport: starting embedded HBase in " + dataDir + " ...");
        long t0 = System.nanoTime();
        EmbeddedHBase hbase = EmbeddedHBase.start(dataDir, local.millis("local.hbase.start.timeout.ms"), nonceGrace);
        started.push(() -> {
            // HBase logs its own orderly stop as errors (regions closing under it): not news.
            org.apache.log4j.LogManager.getLogger("org.apache.hadoop").setLevel(org.apache.log4j.Level.OFF);
            org.apache.log4j.LogManager.getLogger("org.apache.zookeeper").setLevel(org.apache.log4j.Level.OFF);
            hbase.close();
        });
        Connection connection = ConnectionFactory.createConnection(hbase.configuration());
        started.push(connection);
        try (Admin admin = connection.getAdmin()) {
            SchemaApplier.Report report = new SchemaApplier(ctx.layout()).apply(admin, false);
            LOG.info("schema: {} tables created, {} extended, {} ok, {} with drift", report.count(SchemaApplier.Action.CREATED),
                    report.count(SchemaApplier.Action.EXTENDED), report.count(SchemaApplier.Action.OK), report.count(SchemaApplier.Action.DRIFT));
            if (report.hasDrift()) {
                out.println("adreport: WARNING the tables drift from the cube:\n" + report);
            }
        }
        out.printf("adreport: HBase up in %.1f s%n", (System.nanoTime() - t0) / 1e9);

        Metrics metrics = new Metrics();
        JvmMetrics.register(metrics);
        Aggregator aggregator = Services.aggregator(ctx, connection, metrics, clock);
        started.push(aggregator);
        ReportApi.Deps deps = Services.reportDeps(ctx, connection, metrics, clock);
        Javalin api = Services.reportApi(ctx, deps);
        started.push(api::stop);
        String analystKey = deps.keys().ensureKeyFile(dataDir.resolve("analyst.key"), "analyst").key();

        Reconciler reconciler = Services.withViewRepair(ctx, connection,
                new Reconciler(hbase.configuration(), connection, ctx.layout(), reconcileConfig, clock));
        // `bin/adreport reconcile` beside this stack runs in this warm process (its JVM start-up is most of a pass's fixed cost)
        ControlServer.start(dataDir, (argv, o) -> Commands.runInStack(argv, ctx, reconciler, o)).ifPresent(started::push);
        if (reconcileConfig.enabled()) {
            ReconcileScheduler scheduler = new ReconcileScheduler(reconcileConfig, clock, reconciler);
            scheduler.start();
            started.push(scheduler);
        }

        String advertiser = null;
        String advertiserKey = null;
        if (args.has("demo")) {
            advertiser = DemoTraffic.advertiserIds().get(0);
            advertiserKey = deps.keys().ensureKeyFile(dataDir.resolve("demo-advertiser.key"), "advertiser:" + advertiser).key();
            boolean firstStart = !Files.exists(dataDir.resolve("demo.backfilled"));
            DemoOptions options = DemoOptions.defaults().withRate(local.integer("demo.rate")).withSeed(demoSeed(dataDir));
            if (!firstStart) {
                options = options.withBackfill(0, 0);
            }
            // The simulated network asks the ad server for every live slot and fires the beacons it gets back.
            DemoCampaigns.register(new CampaignStore(connection, ctx.layout()), new ZoneStore(connection, ctx.layout()));
            String adserverKey = deps.keys().ensureKeyFile(dataDir.resolve("demo-adserver.key"), "adserver").key();
            DemoTraffic demo = DemoTraffic.start(URI.create("http://localhost:" + aggregator.port()), options, clock,
                    new ServeAdClient(URI.create("http://localhost:" + api.port()), adserverKey));
            started.push(demo);
            if (firstStart) {
                backfillThenReconcile(demo, reconciler, dataDir, local.bool("demo.reconcile.backfill"), options.backfillDays(), clock);
            }
        }

        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("adreport-throughput"));
        long[] last = {aggregator.stats().accepted.get()};
        ticker.scheduleAtFixedRate(() -> {
            long now = aggregator.stats().accepted.get();
            LOG.info("ingest: {} events accepted in the last minute ({} in total), {} duplicates", now - last[0], now,
                    aggregator.stats().duplicates.get());
            last[0] = now;
        }, 1, 1, TimeUnit.MINUTES);
        started.push(ticker::shutdownNow);
        // An embedded HBase that aborted does not come back inside this process: stop loudly
        // (a restart replays the WAL) rather than answer every request with 503.
        AtomicReference<String> hbaseFailure = new AtomicReference<>();
        ticker.scheduleWithFixedDelay(() -> {
            String failure = hbase.failure();
            if (failure != null && hbaseFailure.compareAndSet(null, failure)) {
                LOG.error("{}; stopping adreport (start it again: HBase recovers from its write-ahead log)", failure);
                out.println("adreport: " + failure + "; stopping (start it again: HBase recovers from its write-ahead log)");
                stopped.countDown();
            }
        }, 2, 2, TimeUnit.SECONDS);

        TryLines.Key analyst = new TryLines.Key(analystKey, Role.analyst());
        TryLines.Key tenant = advertiserKey == null ? null : new TryLines.Key(advertiserKey, new Role("advertiser", advertiser));
        printBanner(out, reportConfig.port(), aggregator.port(), dataDir, analystKey, advertiser, advertiserKey,
                TryLines.of(ctx.cube(), reportConfig.port(), aggregator.port(), analyst, tenant, clock.instant()),
                (System.nanoTime() - t0) / 1e9, aggregator.config().mode() == AggregatorConfig.Mode.PUT_ONLY);
        stopped.await();
        return hbaseFailure.get() == null ? 0 : 3;
    }

    private static void backfillThenReconcile(DemoTraffic demo, Reconciler reconciler, Path dataDir, boolean reconcile,
                                              int days, Clock clock) {
        Thread t = new Thread(() -> {
            try {
                if (!demo.awaitBackfill(Duration.ofMinutes(10))) {
                    LOG.warn("demo: back-fill did not finish within 10 minutes");
                    return;
                }
                Files.writeString(dataDir.resolve("demo.backfilled"), clock.instant().toString());
                if (!reconcile) {
                    return;
                }
                LocalDate today = UtcDay.dateToday(clock);
                for (int i = days; i >= 1; i--) {
                    LocalDate day = today.minusDays(i);
                    var report = reconciler.reconcile(day, false, null);
                    LOG.info("demo: reconciled {}: {} events, {} cells corrected", day, report.totals().eventsRead(),
                            report.totals().cellsCorrected());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                LOG.warn("demo: reconcile of the back-filled days failed: {}", e.toString());
            }
        }, "adreport-demo-reconcile");
        t.setDaemon(true);
        t.start();
    }

    private static void printBanner(PrintStream out, int port, int ingestPort, Path dataDir, String analystKey,
                                    String advertiser, String advertiserKey, List<String> tryLines, double seconds,
                                    boolean putOnly) {
        out.printf("%nadreport is running (started in %.0f s)%n", seconds);
        out.printf("  dashboard   http://localhost:%d/          (sign in with a key below)%n", port);
        out.printf("  report API  http://localhost:%d/v1/rollups  (OpenAPI: /openapi.json)%n", port);
        out.printf("  ingest      http://localhost:%d/v1/events%n", ingestPort);
        out.printf("  data        %s%n", dataDir);
        if (putOnly) {
            out.println("  WARNING     aggregator.mode=put-only (benchmarks only): events are stored raw, NOT deduplicated and");
            out.println("              NOT counted; every report stays empty");
        }
        out.printf("  analyst key      %s   (also in %s)%n", analystKey, dataDir.resolve("analyst.key"));
        if (advertiserKey != null) {
            out.printf("  advertiser key   %s   (advertiser %s, demo)%n", advertiserKey, advertiser);
        }
        out.println("  try:");
        tryLines.forEach(line -> out.println("    " + line));
        out.println("  press Ctrl-C to stop (the buffer is flushed; data stays in the data directory).");
    }

    private static void closeAll(Deque<AutoCloseable> started) {
        while (!started.isEmpty()) {
            AutoCloseable c = started.pop();
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("shutdown: {}", e.toString());
            }
        }
    }

    private static void checkPort(int port, String flag) {
        if (port == 0) {
            return;
        }
        try (ServerSocket s = new ServerSocket(port)) {
            s.setReuseAddress(true);
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " is in use (another adreport?); choose another with " + flag + " P");
        }
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

    /** A hex secret generated once and kept (mode 600, written atomically) in {@code file}. */
    /**
     * The simulator sends ad beacons and signs an advertiser in: refuse, before anything starts, a
     * cube that has no advertiser-owned rollup to show them in (a web-analytics or Wikipedia cube).
     */
    static void requireDemoCube(Cube cube) {
        boolean advertiserRollup = cube.rollups().stream().anyMatch(r -> "advertiser".equals(r.tenant()));
        if (!advertiserRollup || cube.dimension("advertiser").isEmpty()) {
            throw new IllegalArgumentException("--demo simulates ad traffic for the built-in ads cube; cube '" + cube.name()
                    + "' has no rollup owned by an advertiser. Start without --demo and post your own events "
                    + "(bin/adreport replay FILE, or POST /v1/events)");
        }
    }

    /**
     * The demo's seed, kept in the data directory: the back-fill's beacon ids follow from it, so
     * a start that stopped before its back-fill finished re-sends the same beacons next time
     * (duplicates, not counted twice). Live beacons carry their run's start time in their ids.
     */
    private static long demoSeed(Path dataDir) throws IOException {
        return Long.parseUnsignedLong(readOrCreateSecret(dataDir.resolve("demo.seed"), 7), 16);
    }

    static String readOrCreateSecret(Path file, int bytes) throws IOException {
        if (Files.isRegularFile(file)) {
            String v = Files.readString(file).trim();
            if (!v.isEmpty()) {
                return v;
            }
        }
        byte[] secret = new byte[bytes];
        new SecureRandom().nextBytes(secret);
        String hex = HexFormat.of().formatHex(secret);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, hex + "\n");
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            LOG.warn("cannot restrict permissions of {}", file);
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return hex;
    }
}
