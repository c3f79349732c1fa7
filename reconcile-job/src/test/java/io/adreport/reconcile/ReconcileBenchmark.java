package io.adreport.reconcile;

import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Wall time of the reconcile job per million raw events, local job runner against the mini
 * cluster in the same JVM. Skipped unless {@code -Dbench=true}:
 * <pre>
 * mvn -B -o verify -pl reconcile-job -am -Dtest=ReconcileBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dbench=true -Dbench.events=1000000 [-Dbench.jfr=target/reconcile.jfr]
 * </pre>
 * Traffic: 90% impressions, 8% clicks, 2% conversions over one day, default ads cube (16 salt
 * buckets, 8 rollups x 3 granularities). Run 1 finds empty counter tables (every cell is
 * written: the worst case), run 2 finds them exact (every cell checked, none written). The floor,
 * measured in the same run: a bare parallel scan of the same day's raw rows ({@code bench.splits}
 * threads over the raw salt buckets, rows counted, nothing decoded). With {@code bench.jfr} set, a
 * JFR recording ("profile" settings) covers the two job runs. Results go to stdout and
 * {@code target/bench-reconcile.txt}.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class ReconcileBenchmark {
    private static final LocalDate D = LocalDate.of(2026, 11, 20);

    @Test
    void job_wall_time_per_million_raw_events(MiniHBase hbase) throws Exception {
        int events = Integer.getInteger("bench.events", 1_000_000);
        int splits = Integer.getInteger("bench.splits", 4);
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("bench"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        RawEventCodec codec = new RawEventCodec(new RowKeyCodec(cube));
        Random rnd = new Random(1);
        long t0 = System.nanoTime();
        int impressions = 0;
        try (Table raw = hbase.connection().getTable(layout.rawTable())) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                Instant ts = D.atStartOfDay(ZoneOffset.UTC).toInstant().plusMillis((long) (rnd.nextDouble() * 86_400_000L));
                int kind = rnd.nextInt(100);
                Event e;
                if (kind < 90 || impressions == 0) {
                    Map<String, String> d = new HashMap<>();
                    int adv = skewed(rnd, 50);
                    d.put("advertiser", "adv" + adv);
                    d.put("campaign", "cmp" + adv + "-" + rnd.nextInt(5));
                    d.put("creative", "cr" + rnd.nextInt(4));
                    int pub = skewed(rnd, 100);
                    d.put("publisher", "pub" + pub);
                    d.put("zone", "z" + pub + "-" + rnd.nextInt(3));
                    d.put("country", List.of("US", "DE", "FR", "GB", "IN", "BR", "JP", "CA").get(skewed(rnd, 8)));
                    d.put("deviceType", List.of("mobile", "desktop", "tablet").get(rnd.nextInt(3)));
                    e = new Event("impression", "i" + impressions++, ts, d, Map.of("costMicros", 500L + rnd.nextInt(3000)), null, Map.of());
                } else if (kind < 98) {
                    e = new Event("click", "c" + i, ts, Map.of(), Map.of(), "i" + rnd.nextInt(impressions), Map.of());
                } else {
                    e = new Event("conversion", "v" + i, ts, Map.of(), Map.of("valueMicros", 10_000L), "i" + rnd.nextInt(impressions), Map.of());
                }
                batch.add(codec.toPut(e, ts.plusSeconds(1)));
                if (batch.size() == 5000) {
                    raw.put(batch);
                    batch = new ArrayList<>();
                }
            }
            raw.put(batch);
        }
        double loadS = (System.nanoTime() - t0) / 1e9;
        hbase.util().flush(layout.rawTable());

        int reducers = Integer.getInteger("bench.reducers", 2);
        ReconcileConfig config = ReconcileConfig.of(Map.of("reconcile.splits", Integer.toString(splits),
                "reconcile.reducers", Integer.toString(reducers), "reconcile.tmp.dir", "target/reconcile-tmp"));
        Reconciler reconciler = new Reconciler(hbase.configuration(), hbase.connection(), layout, config,
                java.time.Clock.systemUTC());
        StringBuilder out = new StringBuilder();
        out.append(String.format("reconcile benchmark: %,d raw events of one day, %d splits, %d reducers, %d cores, load %.1f s, load average %s%n",
                events, splits, reducers, Runtime.getRuntime().availableProcessors(), loadS, loadAverage()));
        double floor = bareScan(hbase, layout, splits, events, out);
        String jfr = System.getProperty("bench.jfr", "");
        jdk.jfr.Recording recording = null;
        if (!jfr.isEmpty()) {
            recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            recording.start();
        }
        for (String run : List.of("run 1 (empty counters: every cell written)", "run 2 (exact counters: nothing written)")) {
            long s = System.nanoTime();
            DriftReport r = reconciler.reconcile(D, false, null);
            double secs = (System.nanoTime() - s) / 1e9;
            out.append(String.format("%s: %.1f s wall = %.1f s per million events (%,.0f events/s); cells checked %,d, corrected %,d%n",
                    run, secs, secs * 1_000_000 / events, events / secs, r.totals().cellsChecked(), r.totals().cellsCorrected()));
            out.append(String.format("  ratio to the bare scan: %.2fx its time%n", secs / floor));
        }
        out.append(String.format("load average after: %s%n", loadAverage()));
        System.out.print(out);
        Files.writeString(Path.of("target/bench-reconcile.txt"), out);
        if (recording != null) {
            recording.stop();
            Path to = Path.of(jfr).toAbsolutePath();
            Files.createDirectories(to.getParent());
            recording.dump(to);
            recording.close();
        }
    }

    /** The floor: every raw row of the day scanned by {@code threads} parallel scanners; returns seconds. */
    private static double bareScan(MiniHBase hbase, TableLayout layout, int threads, int events, StringBuilder out) throws Exception {
        RowKeyCodec keys = new RowKeyCodec(layout.cube());
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        java.util.concurrent.atomic.AtomicLong rows = new java.util.concurrent.atomic.AtomicLong();
        long s = System.nanoTime();
        try {
            List<java.util.concurrent.Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int part = t;
                parts.add(pool.submit(() -> {
                    try (Table raw = hbase.connection().getTable(layout.rawTable())) {
                        for (int salt = part; salt < layout.cube().rawSaltBuckets(); salt += threads) {
                            io.adreport.schema.rowkey.KeyRange range = keys.rawDayRange(salt, D);
                            org.apache.hadoop.hbase.client.Scan scan = new org.apache.hadoop.hbase.client.Scan()
                                    .withStartRow(range.start()).withStopRow(range.stop())
                                    .addFamily(TableLayout.RAW_FAMILY).setCaching(1000).setCacheBlocks(false);
                            try (org.apache.hadoop.hbase.client.ResultScanner rs = raw.getScanner(scan)) {
                                for (org.apache.hadoop.hbase.client.Result r : rs) {
                                    rows.incrementAndGet();
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : parts) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        double secs = (System.nanoTime() - s) / 1e9;
        if (rows.get() != events) {
            throw new AssertionError("bare scan read " + rows.get() + " rows, loaded " + events);
        }
        out.append(String.format("floor (bare parallel scan of the day's raw rows, %d threads): %.1f s = %,.0f events/s%n",
                threads, secs, events / secs));
        return secs;
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /** A value in [0, n) with a skew towards small values (a few big advertisers, publishers). */
    private static int skewed(Random rnd, int n) {
        double x = rnd.nextDouble();
        return Math.min(n - 1, (int) (n * x * x * x));
    }
}
