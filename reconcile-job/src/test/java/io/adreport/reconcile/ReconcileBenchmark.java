package io.adreport.reconcile;

import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Rollup;
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
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Wall time of the reconcile job per million raw events, local job runner against the mini
 * cluster in the same JVM, every figure beside its floor measured in the same run. Skipped
 * unless {@code -Dbench=true}:
 * <pre>
 * mvn -B -o verify -pl reconcile-job -am -Dtest=ReconcileBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dbench=true -Dbench.events=1000000 [-Dbench.jfr=target/jfr] [-Dbench.crossover=2000,10000,40000] \
 *     [-Dbench.levers='reconcile.splits=2|mapreduce.task.io.sort.mb=128'] [-Dbench.runs=C,D]
 * </pre>
 * ({@code -Dbench=true} also selects the parent pom's bench profile: a 5 GB test heap.)
 * Traffic: 90% impressions, 8% clicks, 2% conversions over one day, default ads cube (16 salt
 * buckets, 8 rollups x 3 granularities). In order, each through the full day-close protocol:
 * <ol>
 *   <li>the floor: a bare parallel scan of the day's raw rows ({@code bench.scan.threads} threads, default 4, over
 *       the raw salt buckets, rows counted, nothing decoded);</li>
 *   <li>crossover (small days in fresh namespaces, {@code bench.crossover} event counts): every
 *       cell written once by Puts and once by bulk load, then the same day with nothing to write —
 *       what {@code reconcile.bulk.min.cells} is chosen from;</li>
 *   <li>run A: empty counter tables, every cell written by the Put path ({@code bulk.min.cells=-1});</li>
 *   <li>run B: counters exact, every cell checked, none written;</li>
 *   <li>run C: counter tables truncated, every cell written by the bulk-load path ({@code 0});</li>
 *   <li>run D: nothing differs again (the bulk-loaded counters are exact: 0 cells written);</li>
 *   <li>levers: run B again once per {@code bench.levers} entry ({@code |}-separated; each a
 *       comma list of Hadoop/reconcile settings).</li>
 * </ol>
 * {@code bench.runs} (default {@code crossover,A,B,C,D}) picks the steps; B and D need a write
 * (A or C) before them, the levers one of the four.
 * With {@code bench.jfr} (a directory) each job run gets its own JFR recording ("profile"
 * settings). Results go to stdout and {@code target/bench-reconcile.txt}, written after every step.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class ReconcileBenchmark {
    private static final LocalDate D = LocalDate.of(2026, 11, 20);
    private static final Path OUT = Path.of("target/bench-reconcile.txt");

    private final StringBuilder out = new StringBuilder();

    @Test
    void job_wall_time_per_million_raw_events(MiniHBase hbase) throws Exception {
        int events = Integer.getInteger("bench.events", 1_000_000);
        ReconcileConfig defaults = ReconcileConfig.of(Map.of());
        int splits = Integer.getInteger("bench.splits", defaults.splits());
        int reducers = Integer.getInteger("bench.reducers", defaults.reducers());
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = tables(hbase, cube, "bench");
        long t0 = System.nanoTime();
        load(hbase, layout, events);
        double loadS = (System.nanoTime() - t0) / 1e9;
        line(String.format("reconcile benchmark: %,d raw events of one day, %d splits, %d reducers, %d cores, heap %d MB, raw load %.1f s,"
                        + " load average %s", events, splits, reducers, Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, loadS, loadAverage()));
        double floor = bareScan(hbase, layout, Integer.getInteger("bench.scan.threads", 4), events);

        java.util.Set<String> runs = new java.util.HashSet<>(List.of(System.getProperty("bench.runs", "crossover,A,B,C,D").split(",")));
        if (runs.contains("crossover")) {
            for (String size : System.getProperty("bench.crossover", "2000,10000,40000").split(",")) {
                if (!size.isBlank()) {
                    crossover(hbase, cube, Integer.parseInt(size.trim()), splits, reducers);
                }
            }
        }

        Map<String, String> base = Map.of("reconcile.splits", Integer.toString(splits), "reconcile.reducers", Integer.toString(reducers));
        DriftReport a = null;
        if (runs.contains("A")) {
            a = run(hbase, layout, "A every cell differs, Put path", with(base, "reconcile.bulk.min.cells", "-1"), events, floor);
        }
        if (runs.contains("B")) {
            DriftReport b = run(hbase, layout, "B nothing differs", base, events, floor);
            check(b.totals().cellsCorrected() == 0, "run B wrote cells");
        }
        if (runs.contains("C")) {
            if (a != null) {
                for (Rollup r : cube.rollups()) {
                    try (Admin admin = hbase.connection().getAdmin()) {
                        admin.disableTable(layout.counterTable(r));
                        admin.truncateTable(layout.counterTable(r), true);
                    }
                }
            }
            DriftReport c = run(hbase, layout, "C every cell differs, bulk-load path", with(base, "reconcile.bulk.min.cells", "0"), events, floor);
            check(a == null || c.totals().cellsCorrected() == a.totals().cellsCorrected(), "runs A and C corrected different numbers of cells");
            check(c.totals().cellsBulkLoaded() == c.totals().cellsCorrected(), "run C did not bulk-load every correction");
        }
        if (runs.contains("D")) {
            DriftReport d = run(hbase, layout, "D nothing differs (after the bulk load)", base, events, floor);
            check(d.totals().cellsCorrected() == 0, "run D wrote cells: the bulk-loaded counters were not exact");
        }

        String levers = System.getProperty("bench.levers", "");
        for (String lever : levers.split("\\|")) {
            if (lever.isBlank()) {
                continue;
            }
            Map<String, String> settings = new HashMap<>(base);
            for (String kv : lever.split(",")) {
                String[] p = kv.split("=", 2);
                settings.put(p[0].trim(), p[1].trim());
            }
            DriftReport l = run(hbase, layout, "lever " + lever + ": nothing differs", settings, events, floor);
            check(l.totals().cellsCorrected() == 0, "lever run wrote cells");
        }
        line(String.format("load average after: %s", loadAverage()));
    }

    /**
     * A small day in fresh namespaces: every cell written by Puts (namespace p) and by bulk load
     * (namespace b), then the same day with nothing to write (the recount alone).
     */
    private void crossover(MiniHBase hbase, Cube cube, int events, int splits, int reducers) throws Exception {
        TableLayout p = tables(hbase, cube, "crossp");
        TableLayout b = tables(hbase, cube, "crossb");
        load(hbase, p, events);
        load(hbase, b, events);
        Map<String, String> base = Map.of("reconcile.splits", Integer.toString(splits), "reconcile.reducers", Integer.toString(reducers));
        double[] s = new double[3];
        DriftReport[] r = new DriftReport[3];
        String[] names = {"Put path", "bulk load", "nothing differs"};
        for (int i = 0; i < 3; i++) {
            TableLayout layout = i == 1 ? b : p;
            Map<String, String> settings = with(base, "reconcile.bulk.min.cells", i == 1 ? "0" : "-1");
            long t = System.nanoTime();
            r[i] = reconciler(hbase, layout, settings).reconcile(D, false, null);
            s[i] = (System.nanoTime() - t) / 1e9;
        }
        check(r[0].totals().cellsCorrected() == r[1].totals().cellsCorrected(), "crossover: the paths corrected different numbers of cells");
        long cells = r[0].totals().cellsCorrected();
        line(String.format("crossover %,d events, %,d cells written: Put path %.1f s, bulk load %.1f s, nothing differs %.1f s"
                        + " -> writing costs Put %.1f s (%,.0f cells/s), bulk %.1f s; load average %s",
                events, cells, s[0], s[1], s[2], s[0] - s[2], cells / Math.max(0.001, s[0] - s[2]), s[1] - s[2], loadAverage()));
    }

    private DriftReport run(MiniHBase hbase, TableLayout layout, String name, Map<String, String> settings, int events, double floor)
            throws Exception {
        String jfr = System.getProperty("bench.jfr", "");
        jdk.jfr.Recording recording = null;
        if (!jfr.isEmpty()) {
            recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            recording.start();
        }
        String before = loadAverage();
        long s = System.nanoTime();
        DriftReport r = reconciler(hbase, layout, settings).reconcile(D, false, null);
        double secs = (System.nanoTime() - s) / 1e9;
        if (recording != null) {
            recording.stop();
            Path to = Path.of(jfr, "run-" + name.split(" ")[0] + (name.startsWith("lever") ? "-" + Math.abs(name.hashCode()) : "") + ".jfr")
                    .toAbsolutePath();
            Files.createDirectories(to.getParent());
            recording.dump(to);
            recording.close();
        }
        line(String.format("%s %s: %.1f s wall = %.1f s per million events (%,.0f events/s), %.2fx the floor's time;"
                        + " cells checked %,d, corrected %,d (deleted %,d, bulk-loaded %,d); load average %s -> %s",
                name, settings, secs, secs * 1_000_000 / events, events / secs, secs / floor, r.totals().cellsChecked(),
                r.totals().cellsCorrected(), r.totals().cellsDeleted(), r.totals().cellsBulkLoaded(), before, loadAverage()));
        return r;
    }

    private static Reconciler reconciler(MiniHBase hbase, TableLayout layout, Map<String, String> settings) {
        Map<String, String> reconcile = new HashMap<>();
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(hbase.configuration());
        settings.forEach((k, v) -> {
            if (k.startsWith("reconcile.")) {
                reconcile.put(k, v);
            } else {
                conf.set(k, v); // Hadoop settings (the local runner keeps a value given here)
            }
        });
        reconcile.put("reconcile.tmp.dir", "target/reconcile-tmp");
        return new Reconciler(conf, hbase.connection(), layout, ReconcileConfig.of(reconcile), java.time.Clock.systemUTC());
    }

    private static Map<String, String> with(Map<String, String> base, String k, String v) {
        Map<String, String> m = new HashMap<>(base);
        m.put(k, v);
        return m;
    }

    private static TableLayout tables(MiniHBase hbase, Cube cube, String hint) throws Exception {
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace(hint));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        return layout;
    }

    /** {@code events} raw rows of day D (fixed seed), loaded with batched Puts and flushed. */
    private static void load(MiniHBase hbase, TableLayout layout, int events) throws Exception {
        RawEventCodec codec = new RawEventCodec(new RowKeyCodec(layout.cube()));
        Random rnd = new Random(1);
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
        hbase.util().flush(layout.rawTable());
    }

    private void line(String s) throws java.io.IOException {
        System.out.println(s);
        out.append(s).append('\n');
        Files.writeString(OUT, out);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** The floor: every raw row of the day scanned by {@code threads} parallel scanners; returns seconds. */
    private double bareScan(MiniHBase hbase, TableLayout layout, int threads, int events) throws Exception {
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
        line(String.format("floor (bare parallel scan of the day's raw rows, %d threads): %.1f s = %,.0f events/s; load average %s",
                threads, secs, events / secs, loadAverage()));
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
