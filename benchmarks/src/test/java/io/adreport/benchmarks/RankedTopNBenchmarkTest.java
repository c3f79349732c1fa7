package io.adreport.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.reconcile.topn.RankedIndexWriter;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import io.adreport.schema.hbase.BulkHFiles;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Ranked top-N latency through HTTP with auth, beside DuckDB (embedded, in memory) answering the
 * same questions over the same rows, in the same JVM and run.
 *
 * <p>Data ({@code -Dtopn.keys=K}, default 100,000): K campaign keys (advertiser {@code adv-(k mod
 * 100)}, campaign {@code cmp-k}) with Zipf-skewed daily impressions (weight 1e6 / (k+1)^1.07 times
 * a uniform 0.5–1.5 factor from a hash of (k, day), at least 1, so every key has a row every day)
 * on 31 days 2026-10-01..31, reconciled, plus one live day 2026-11-01 (counters only); one
 * creative series of 48 HOUR rows. The counters, the 31 day lists, October's month list and the
 * pointers are written as HFiles and bulk-loaded ({@link BulkHFiles}); their rows come from the
 * production {@code RowKeyCodec} and {@link RankedIndexWriter}'s row builders, exactly what the
 * nightly job would write for those counters (ingest and the recount job are not run: at this
 * scale that would take hours here). DuckDB gets the same (day, advertiser, campaign, impressions)
 * rows and the same hourly rows.
 *
 * <p>Run: {@code mvn -B -o verify -pl benchmarks -am -Dbench=true -Dtest='RankedTopNBenchmarkTest#top_100_latency_beside_duckdb'
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtopn.keys=1000000 -Dtopn.runs=100 -Dtopn.peerRuns=20}
 * (or {@code benchmarks/run-topn.sh}); the numbers go to {@code benchmarks/target/topn-bench-K.txt}.
 * {@code topn.peerRuns} times DuckDB on every (runs/peerRuns)-th request only, {@code
 * topn.liveRuns} sets the requests of the question that scans the live day. Answers are checked
 * equal; no timed assertion.
 */
@ExtendWith(HBaseExtension.class)
class RankedTopNBenchmarkTest {
    private static final LocalDate FIRST = LocalDate.parse("2026-10-01");
    private static final int DAYS = 31;
    private static final LocalDate LIVE = FIRST.plusDays(DAYS);
    private static final int ADVERTISERS = 100;
    private static final int RUNS = Integer.getInteger("topn.runs", 120);
    /** DuckDB answers every (RUNS / PEER_RUNS)-th request's question too (a full aggregation of 1M keys takes seconds). */
    private static final int PEER_RUNS = Integer.getInteger("topn.peerRuns", RUNS);
    private static final int LIVE_RUNS = Integer.getInteger("topn.liveRuns", Math.max(10, RUNS / 6));
    /** {@code -Dtopn.only=series} asks the series question alone (for profiling it). */
    private static final boolean SERIES_ONLY = "series".equals(System.getProperty("topn.only"));
    /**
     * Seconds of requests (the measured questions, round robin) before anything is timed: a
     * deployed API has compiled its hot paths long before an analyst asks, a just-started one has not.
     */
    private static final int WARM_UP_SECONDS = Integer.getInteger("topn.warmUpSeconds", 30);
    /**
     * {@code -Dtopn.api=process} serves from {@code bin/adreport report-api} in its own JVM instead
     * of this one (as {@code bin/adreport local} does, beside the HBase it reads). On 2 cores the
     * third JVM did not help: see docs/BENCHMARKS.md.
     */
    private static final boolean API_PROCESS = "process".equals(System.getProperty("topn.api"));
    /** The machine's own stalls beside each timed question (started with the timed part). */
    private static MachineStalls machine;

    /**
     * Not a benchmark (runs in every build): what the benchmark bulk-loads is what the nightly
     * path writes. The same counters, bulk-loaded for 300 keys, are copied into a second
     * namespace whose index the production {@link RankedIndexWriter} writes day by day (and the
     * month once it is complete); every campaign row of both index tables is equal.
     */
    @Test
    void the_bulk_loaded_index_equals_what_the_production_writer_writes(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        TableLayout bulk = new TableLayout(cube, hbase.freshNamespace("topnbulk"));
        TableLayout written = new TableLayout(cube, hbase.freshNamespace("topnput"));
        new SchemaApplier(bulk).apply(hbase.connection().getAdmin(), false);
        new SchemaApplier(written).apply(hbase.connection().getAdmin(), false);
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            load(hbase, cube, bulk, duck, 300, new StringBuilder());
        }
        try (org.apache.hadoop.hbase.client.Table from = hbase.connection().getTable(bulk.counterTable(campaign));
             BufferedMutator to = hbase.connection().getBufferedMutator(written.counterTable(campaign));
             org.apache.hadoop.hbase.client.ResultScanner rs = from.getScanner(new org.apache.hadoop.hbase.client.Scan())) {
            for (org.apache.hadoop.hbase.client.Result r : rs) {
                Put p = new Put(r.getRow());
                r.listCells().forEach(c -> p.addColumn(TableLayout.COUNTER_FAMILY, org.apache.hadoop.hbase.CellUtil.cloneQualifier(c),
                        org.apache.hadoop.hbase.CellUtil.cloneValue(c)));
                to.mutate(p);
            }
        }
        DayStatusStore meta = new DayStatusStore(hbase.connection(), written, Clock.systemUTC());
        RankedIndexWriter writer = new RankedIndexWriter(hbase.connection(), written);
        for (int d = 0; d < DAYS; d++) {
            meta.markClosing(FIRST.plusDays(d));
            writer.write(FIRST.plusDays(d));
            meta.markReconciled(FIRST.plusDays(d), "{}");
            writer.writeMonthIfComplete(FIRST.plusDays(d), meta);
        }
        List<String> a = campaignIndexRows(hbase, bulk);
        List<String> b = campaignIndexRows(hbase, written);
        assertEquals(b.size(), a.size());
        assertEquals(b, a);
        assertEquals(true, a.size() > 300 * 2 * (DAYS + 1), "day lists, month list and series rows: " + a.size());
    }

    private static List<String> campaignIndexRows(MiniHBase hbase, TableLayout layout) throws Exception {
        List<String> out = new ArrayList<>();
        byte[] prefix = Bytes.toBytes("campaign\0");
        try (org.apache.hadoop.hbase.client.Table t = hbase.connection().getTable(layout.rankedIndexTable());
             org.apache.hadoop.hbase.client.ResultScanner rs = t.getScanner(new org.apache.hadoop.hbase.client.Scan()
                     .setRowPrefixFilter(prefix))) {
            for (org.apache.hadoop.hbase.client.Result r : rs) {
                r.listCells().forEach(c -> out.add(Bytes.toStringBinary(org.apache.hadoop.hbase.CellUtil.cloneRow(c)) + " "
                        + Bytes.toStringBinary(org.apache.hadoop.hbase.CellUtil.cloneQualifier(c)) + "="
                        + Bytes.toStringBinary(org.apache.hadoop.hbase.CellUtil.cloneValue(c))));
            }
        }
        return out;
    }

    @Test
    @EnabledIfSystemProperty(named = "bench", matches = "true")
    void top_100_latency_beside_duckdb(MiniHBase hbase) throws Exception {
        int keys = Integer.getInteger("topn.keys", 100_000);
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("topnbench"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        StringBuilder report = new StringBuilder();
        report.append(String.format("ranked top-N benchmark: %,d keys x %d reconciled days + 1 live day, %d cores, heap max %d MB,"
                + " load average at start %.2f%n", keys, DAYS, Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, load()));

        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            long t0 = System.nanoTime();
            save(report, keys);
            load(hbase, cube, layout, duck, keys, report);
            report.append(String.format("loaded in %.1f s; load average %.2f%n", (System.nanoTime() - t0) / 1e9, load()));
            save(report, keys);

            Metrics metrics = new Metrics();
            ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.defaults(), metrics,
                    Clock.systemUTC());
            String analyst = deps.keys().create("analyst");
            String tenant = deps.keys().create("advertiser:adv-7");
            // The API in this JVM beside the mini cluster, or in its own (-Dtopn.api=process: bin/adreport report-api).
            Javalin app = API_PROCESS ? null : ReportApi.create(deps).start("127.0.0.1", 0);
            ApiProcess process = API_PROCESS ? ApiProcess.start(hbase.zooKeeperPort(), layout.namespace()) : null;
            int port = API_PROCESS ? process.port() : app.port();
            report.append(API_PROCESS ? "the report API: bin/adreport report-api, its own JVM (pid " + process.pid() + ")\n"
                    : "the report API: in the benchmark's JVM\n");
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + port + "/v1/reports/";
            java.util.function.Supplier<String> scrape = () -> API_PROCESS ? getUnchecked(http, "http://127.0.0.1:" + port + "/metrics")
                    : metrics.scrape();
            try {
                String top = "campaign?granularity=all&groupBy=advertiser,campaign&metrics=impressions&orderBy=-impressions&limit=100";
                String sqlTop = "SELECT advertiser, campaign, sum(impressions) s FROM c WHERE day >= ? AND day < ? %s"
                        + " GROUP BY advertiser, campaign ORDER BY s DESC, advertiser, campaign LIMIT 100";
                String series = base + "creative?from=2026-10-31T12:00:00Z&to=2026-11-02T12:00:00Z"
                        + "&granularity=hour&advertiser=adv-0&campaign=cmp-0&creative=cr-0&metrics=impressions";
                machine = new MachineStalls();
                report.append(warmUp(http, WARM_UP_SECONDS, List.of(analyst, tenant, analyst, analyst, analyst),
                        List.of(base + top + "&from=2026-10-01&to=2026-11-01", base + top + "&from=2026-10-01&to=2026-11-01",
                                base + top + "&from=2026-10-15&to=2026-10-16", base + top + "&from=2026-10-02&to=2026-11-01", series)));
                if (!SERIES_ONLY) {
                    report.append(compare("top-100 over 31 reconciled days", http, analyst,
                            base + top + "&from=2026-10-01&to=2026-11-01", duck, String.format(sqlTop, ""), "2026-10-01", "2026-11-01", null));
                    save(report, keys);
                    report.append(compare("tenant (advertiser key) top-100 over 31 days", http, tenant,
                            base + top + "&from=2026-10-01&to=2026-11-01",
                            duck, String.format(sqlTop, "AND advertiser = ?"), "2026-10-01", "2026-11-01", "adv-7"));
                    save(report, keys);
                    report.append(compare("top-100 of one reconciled day", http, analyst,
                            base + top + "&from=2026-10-15&to=2026-10-16", duck, String.format(sqlTop, ""), "2026-10-15", "2026-10-16", null));
                    save(report, keys);
                }
                String before = scrape.get();
                report.append(compareSeries(http, analyst, series, duck));
                MachineStalls.Mark floors = machine.mark();
                report.append(seriesFloors(http, analyst, base, hbase, layout, cube, deps.days()));
                report.append(machine.since(floors, "during the floors"));
                report.append(breakdown(before, scrape.get()));
                save(report, keys);
                if (!SERIES_ONLY) {
                    report.append(compare("top-100 over 30 reconciled days, not a whole month (30 day lists)", http, analyst,
                            base + top + "&from=2026-10-02&to=2026-11-01", duck, String.format(sqlTop, ""), "2026-10-02", "2026-11-01", null));
                    save(report, keys);
                    if (keys <= 300_000) {
                        report.append(compare("top-100 over 31 reconciled days + the live day (live day scanned)", http, analyst,
                                base + top + "&from=2026-10-01&to=2026-11-02", duck, String.format(sqlTop, ""), "2026-10-01", "2026-11-02", null,
                                LIVE_RUNS));
                    } else { // the live day is scanned: K rows, more than report.max.rows.scanned (1M) allows near 1M keys
                        report.append("top-100 over 31 reconciled days + the live day: skipped (scans all " + keys + " rows of the live day)\n");
                    }
                }
                scrape.get().lines().filter(l -> l.startsWith("adreport_report_plan_total")
                        || l.startsWith("adreport_report_topn_")).forEach(l -> report.append("  ").append(l).append('\n'));
            } finally {
                if (machine != null) {
                    machine.close();
                }
                if (app != null) {
                    app.stop();
                }
                if (process != null) {
                    process.close();
                }
            }
        }
        report.append(String.format("load average at the end: %.2f%n", load()));
        save(report, keys);
        System.err.print(report);
    }

    /**
     * Where the series' time went on the server, from {@code /metrics} scraped before and after its
     * requests: mean request time inside the API (routing to the answer written) and mean counter
     * multi-Get; the rest of the client's time is HTTP and the client itself.
     */
    private static String breakdown(String before, String after) {
        String request = "adreport_report_request_seconds_%s{route=\"/v1/reports/{rollup}\",status=\"200\"}";
        String multiget = "adreport_report_hbase_read_seconds_%s{kind=\"multiget\"}";
        return String.format("  series on the server: mean request %.2f ms, mean counter multi-Get %.2f ms%n",
                meanMillis(before, after, request), meanMillis(before, after, multiget));
    }

    private static double meanMillis(String before, String after, String pattern) {
        double sum = value(after, String.format(pattern, "sum")) - value(before, String.format(pattern, "sum"));
        double count = value(after, String.format(pattern, "count")) - value(before, String.format(pattern, "count"));
        return count == 0 ? Double.NaN : 1000 * sum / count;
    }

    private static double value(String scrape, String series) {
        return scrape.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
                .findFirst().orElse(0);
    }

    /** The report so far (a run cut short still leaves what it measured). */
    private static void save(StringBuilder report, int keys) throws java.io.IOException {
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "topn-bench-" + keys + ".txt"), report);
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String compare(String what, HttpClient http, String key, String url, Connection duck, String sql,
                                  String from, String to, String advertiser) throws Exception {
        return compare(what, http, key, url, duck, sql, from, to, advertiser, RUNS);
    }

    /** Checks both answers equal, then times {@code runs} of each (after a warm-up). */
    private static String compare(String what, HttpClient http, String key, String url, Connection duck, String sql,
                                  String from, String to, String advertiser, int runs) throws Exception {
        List<String> api = apiTop(get(http, url, key));
        List<String> peer = duckTop(duck, sql, from, to, advertiser);
        assertEquals(peer, api, what);
        assertEquals(100, api.size(), what);
        int peerRuns = Math.min(runs, PEER_RUNS);
        int every = Math.max(1, runs / peerRuns);
        long[] a = new long[runs];
        long[] b = new long[Math.min(peerRuns, (runs + every - 1) / every)];
        for (int i = 0; i < Math.min(20, runs / 2); i++) {
            get(http, url, key);
            if (i < 2) {
                duckTop(duck, sql, from, to, advertiser);
            }
        }
        int p = 0;
        MachineStalls.Mark mark = machine.mark();
        long[] at = new long[runs];
        boolean[] afterPeer = new boolean[runs];
        boolean peerRan = false;
        for (int i = 0; i < runs; i++) {
            at[i] = System.currentTimeMillis();
            afterPeer[i] = peerRan;
            long t0 = System.nanoTime();
            get(http, url, key);
            long t1 = System.nanoTime();
            a[i] = t1 - t0;
            peerRan = i % every == 0 && p < b.length;
            if (peerRan) {
                duckTop(duck, sql, from, to, advertiser);
                b[p++] = System.nanoTime() - t1;
            }
        }
        return machine.since(mark, "meanwhile") + slowest(a, at, afterPeer) + line(what, a, Arrays.copyOf(b, p));
    }

    private static String compareSeries(HttpClient http, String key, String url, Connection duck) throws Exception {
        String sql = "SELECT hour, sum(impressions) FROM h WHERE advertiser = 'adv-0' AND campaign = 'cmp-0' AND creative = 'cr-0'"
                + " AND hour >= TIMESTAMP '2026-10-31 12:00:00' AND hour < TIMESTAMP '2026-11-02 12:00:00' GROUP BY hour ORDER BY hour";
        List<Long> api = new ArrayList<>();
        new ObjectMapper().readTree(get(http, url, key)).get("rows").forEach(r -> api.add(r.get("metrics").get("impressions").asLong()));
        assertEquals(duckSeries(duck, sql), api, "series");
        long[] a = new long[RUNS];
        long[] b = new long[RUNS];
        MachineStalls.Mark mark = machine.mark();
        long[] at = new long[RUNS];
        boolean[] afterPeer = new boolean[RUNS];
        for (int i = 0; i < RUNS; i++) {
            at[i] = System.currentTimeMillis();
            afterPeer[i] = i > 0;
            long t0 = System.nanoTime();
            get(http, url, key);
            long t1 = System.nanoTime();
            duckSeries(duck, sql);
            a[i] = t1 - t0;
            b[i] = System.nanoTime() - t1;
        }
        return machine.since(mark, "meanwhile") + slowest(a, at, afterPeer) + line("one-key 48-hour hourly series", a, b);
    }

    /**
     * The series' floors, in the same run, interleaved request by request so that they meet the
     * same machine: the HTTP path alone ({@code GET /v1/rollups}: routing, the bearer key, a JSON
     * answer, no HBase read), and the series' counter read alone (the same 48 rows by the same
     * skip-scan, through the HBase client in this JVM, no HTTP: by the blocking {@code Table}
     * scanner and by {@code AsyncTable.scanAll}), the day marks alone, and both reads in parallel
     * as a report issues them.
     */
    private static String seriesFloors(HttpClient http, String key, String base, MiniHBase hbase, TableLayout layout, Cube cube,
                                       DayStatusStore meta) throws Exception {
        Rollup creative = cube.rollup("creative").orElseThrow();
        RowKeyCodec codec = new RowKeyCodec(cube);
        List<byte[]> rows = new ArrayList<>();
        long first = LocalDateTime.of(2026, 10, 31, 12, 0).toEpochSecond(ZoneOffset.UTC) / 60;
        for (int h = 0; h < 48; h++) {
            rows.add(codec.counterKey(creative, Granularity.HOUR, first + 60L * h, List.of("adv-0", "cmp-0", "cr-0")));
        }
        List<org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
        rows.forEach(k -> ranges.add(new org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange(k, true, k, true)));
        byte[] lo = rows.stream().min(Bytes.BYTES_COMPARATOR).orElseThrow();
        byte[] hi = rows.stream().max(Bytes.BYTES_COMPARATOR).orElseThrow();
        java.util.function.Supplier<org.apache.hadoop.hbase.client.Scan> scan = () -> new org.apache.hadoop.hbase.client.Scan()
                .withStartRow(lo).withStopRow(hi, true).setFilter(new org.apache.hadoop.hbase.filter.MultiRowRangeFilter(ranges))
                .setCaching(48).setLimit(48);
        long[] h = new long[RUNS];
        long[] b = new long[RUNS];
        long[] c = new long[RUNS];
        long[] d = new long[RUNS];
        long[] e = new long[RUNS];
        org.apache.hadoop.hbase.TableName table = layout.counterTable(creative);
        try (org.apache.hadoop.hbase.client.AsyncConnection async =
                     org.apache.hadoop.hbase.client.ConnectionFactory.createAsyncConnection(hbase.connection().getConfiguration()).get()) {
            org.apache.hadoop.hbase.client.AsyncTable<?> at = async.getTable(table);
            DayStatusStore.AsyncScan metaScan = (name, sc) -> async.getTable(name).scanAll(sc);
            for (int i = -20; i < RUNS; i++) {
                long t0 = System.nanoTime();
                get(http, base.replace("/v1/reports/", "/v1/rollups"), key);
                long t1 = System.nanoTime();
                int n = 0;
                try (org.apache.hadoop.hbase.client.Table t = hbase.connection().getTable(table);
                     org.apache.hadoop.hbase.client.ResultScanner rs = t.getScanner(scan.get())) {
                    for (org.apache.hadoop.hbase.client.Result r : rs) {
                        n++;
                    }
                }
                long t2 = System.nanoTime();
                int m = at.scanAll(scan.get()).get().size();
                long t3 = System.nanoTime();
                meta.daysLater(LocalDate.parse("2026-10-31"), LocalDate.parse("2026-11-02"), metaScan::scanAll).get();
                long t4 = System.nanoTime();
                var days = meta.daysLater(LocalDate.parse("2026-10-31"), LocalDate.parse("2026-11-02"), metaScan::scanAll);
                at.scanAll(scan.get()).get();
                days.get();
                long t5 = System.nanoTime();
                assertEquals(48, n, "series rows");
                assertEquals(48, m, "series rows (async)");
                if (i >= 0) {
                    h[i] = t1 - t0;
                    b[i] = t2 - t1;
                    c[i] = t3 - t2;
                    d[i] = t4 - t3;
                    e[i] = t5 - t4;
                }
            }
        }
        return String.format("  series floors, same run: %s; %s; %s; %s; %s%n", pct("HTTP alone (GET /v1/rollups, auth)", h),
                pct("its 48 rows by the HBase client alone (Table scanner)", b), pct("by AsyncTable.scanAll", c),
                pct("day marks alone", d), pct("scanAll with day marks in parallel", e));
    }

    private static String pct(String what, long[] t) {
        long[] s = t.clone();
        Arrays.sort(s);
        return String.format("%s p50 %.2f ms p99 %.2f ms", what, s[s.length / 2] / 1e6, s[(int) Math.ceil(s.length * 0.99) - 1] / 1e6);
    }

    /**
     * The five slowest requests with their wall-clock start (UTC, to line up with the JVMs' GC
     * logs), whether a DuckDB query ran just before them, and whether the machine's ticker
     * ({@link MachineStalls}) stalled meanwhile: where a tail comes from.
     */
    private static String slowest(long[] nanos, long[] startMillis, boolean[] afterPeer) {
        Integer[] order = new Integer[nanos.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(nanos[y], nanos[x]));
        StringBuilder out = new StringBuilder("  slowest:");
        for (int j = 0; j < Math.min(5, order.length); j++) {
            int i = order[j];
            double late = machine.lateDuring(startMillis[i], nanos[i] / 1e6);
            out.append(String.format(" %s %.1f ms%s%s;", java.time.Instant.ofEpochMilli(startMillis[i]).toString().substring(11, 23),
                    nanos[i] / 1e6, afterPeer[i] ? " (after DuckDB)" : "", late > 0 ? String.format(" (ticker %.0f ms late)", late) : ""));
        }
        return out.append('\n').toString();
    }

    private static String line(String what, long[] api, long[] duck) {
        Arrays.sort(api);
        Arrays.sort(duck);
        int n = api.length;
        int m = duck.length;
        double ap99 = api[(int) Math.ceil(n * 0.99) - 1] / 1e6;
        double dp99 = duck[(int) Math.ceil(m * 0.99) - 1] / 1e6;
        return String.format("%-70s n=%d  adreport p50 %7.1f ms p99 %7.1f ms | duckdb n=%d p50 %7.1f ms p99 %7.1f ms | p99 ratio %.3f, p50 ratio %.3f%n",
                what, n, api[n / 2] / 1e6, ap99, m, duck[m / 2] / 1e6, dp99, ap99 / dp99, (double) api[n / 2] / duck[m / 2]);
    }

    private static List<String> apiTop(String body) throws Exception {
        List<String> out = new ArrayList<>();
        JsonNode rows = new ObjectMapper().readTree(body).get("rows");
        rows.forEach(r -> out.add(r.get("dimensions").get("advertiser").asText() + "/" + r.get("dimensions").get("campaign").asText()
                + "=" + r.get("metrics").get("impressions").asLong()));
        return out;
    }

    private static List<String> duckTop(Connection duck, String sql, String from, String to, String advertiser) throws Exception {
        try (PreparedStatement ps = duck.prepareStatement(sql)) {
            ps.setObject(1, LocalDate.parse(from));
            ps.setObject(2, LocalDate.parse(to));
            if (advertiser != null) {
                ps.setString(3, advertiser);
            }
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + "/" + rs.getString(2) + "=" + rs.getLong(3));
                }
            }
            return out;
        }
    }

    private static List<Long> duckSeries(Connection duck, String sql) throws Exception {
        List<Long> out = new ArrayList<>();
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getLong(2));
            }
        }
        return out;
    }

    /** Asks {@code urls} (each with its key) round robin for {@code seconds}; says how many requests that was. */
    private static String warmUp(HttpClient http, int seconds, List<String> keys, List<String> urls) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        int n = 0;
        while (System.nanoTime() < end) {
            get(http, urls.get(n % urls.size()), keys.get(n % urls.size()));
            n++;
        }
        return String.format("warm-up: %d requests in %d s, the questions below round robin, not timed%n", n, seconds);
    }

    /** An unauthenticated GET ({@code /metrics}), its failure unchecked (for a supplier). */
    private static String getUnchecked(HttpClient http, String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String get(HttpClient http, String url, String key) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(url + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** Day {@code d}'s impressions of key {@code k}: Zipf weight times a uniform 0.5–1.5 factor, at least 1. */
    private static long value(double[] weight, int k, int d) {
        long z = (k * 0x9E3779B97F4A7C15L) ^ ((d + 1) * 0xC2B2AE3D27D4EB4FL);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        double u = (z >>> 11) * 0x1.0p-53;
        return 1 + (long) (weight[k] * (0.5 + u));
    }

    private record Cell(byte[] row, byte[] qualifier, byte[] value) implements Comparable<Cell> {
        @Override
        public int compareTo(Cell o) {
            int c = Bytes.compareTo(row, o.row);
            return c != 0 ? c : Bytes.compareTo(qualifier, o.qualifier);
        }
    }

    /**
     * The same rows into HBase and DuckDB (tables c and h): the campaign DAY counters of 31
     * reconciled days and the live day, the reconciled days' lists and October's month list, as
     * HFiles bulk-loaded (rows built by the production codec and {@link RankedIndexWriter}'s row
     * builders, generation 1, pointers included); the 31 days marked reconciled; 48 HOUR rows
     * of one creative by Puts. Returns the cells loaded.
     */
    private static long load(MiniHBase hbase, Cube cube, TableLayout layout, Connection duck, int keys, StringBuilder report)
            throws Exception {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        Rollup creative = cube.rollup("creative").orElseThrow();
        List<String> metricNames = cube.metrics().stream().map(m -> m.name()).toList();
        int imp = metricNames.indexOf("impressions");
        byte[] impressions = Bytes.toBytes("impressions");
        try (Statement st = duck.createStatement()) {
            st.execute("CREATE TABLE c (day DATE, advertiser VARCHAR, campaign VARCHAR, impressions BIGINT)");
            st.execute("CREATE TABLE h (hour TIMESTAMP, advertiser VARCHAR, campaign VARCHAR, creative VARCHAR, impressions BIGINT)");
        }
        double[] weight = new double[keys];
        List<List<String>> series = new ArrayList<>(keys);
        for (int k = 0; k < keys; k++) {
            weight[k] = 1e6 / Math.pow(k + 1, 1.07);
            series.add(List.of("adv-" + (k % ADVERTISERS), "cmp-" + k));
        }
        // counters: keys in row-key order (salt, then values; the day sits between and is the same for all)
        long t0 = System.nanoTime();
        long firstMinute = FIRST.toEpochDay() * 1440;
        Integer[] order = new Integer[keys];
        byte[][] day0 = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            order[k] = k;
            day0[k] = codec.counterKey(campaign, Granularity.DAY, firstMinute, series.get(k));
        }
        Arrays.sort(order, (a, b) -> Bytes.compareTo(day0[a], day0[b]));
        long cells = 0;
        org.apache.hadoop.fs.Path tmp = new org.apache.hadoop.fs.Path(Path.of("target", "topn-bulk").toAbsolutePath().toUri());
        long loadedAt = System.currentTimeMillis();
        try (BulkHFiles counters = new BulkHFiles(hbase.configuration(), hbase.connection(), new org.apache.hadoop.fs.Path(tmp, "counters"), null);
             DuckDBAppender app = ((DuckDBConnection) duck).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "c")) {
            int i = 0;
            while (i < keys) {
                int salt = day0[order[i]][0];
                int j = i;
                while (j < keys && day0[order[j]][0] == salt) {
                    j++;
                }
                counters.newFile(layout.counterTable(campaign), TableLayout.COUNTER_FAMILY); // one file per salt bucket, the table's regions
                for (int d = 0; d <= DAYS; d++) {
                    LocalDate day = FIRST.plusDays(d);
                    for (int x = i; x < j; x++) {
                        int k = order[x];
                        long v = value(weight, k, d);
                        counters.append(new KeyValue(codec.counterKey(campaign, Granularity.DAY, day.toEpochDay() * 1440, series.get(k)),
                                TableLayout.COUNTER_FAMILY, impressions, loadedAt, KeyValue.Type.Put, Bytes.toBytes(v)));
                        app.beginRow();
                        app.append(day);
                        app.append(series.get(k).get(0));
                        app.append(series.get(k).get(1));
                        app.append(v);
                        app.endRow();
                    }
                }
                i = j;
            }
            counters.load();
            cells += counters.cells();
        }
        long t1 = System.nanoTime();
        System.err.printf("counters and DuckDB rows loaded in %.1f s%n", (t1 - t0) / 1e9);
        // the index: day lists (kind E, day by day), then month entries, pointers, month series rows (M < P < Q < S)
        long entries = 0;
        try (BulkHFiles index = new BulkHFiles(hbase.configuration(), hbase.connection(), new org.apache.hadoop.fs.Path(tmp, "index"), null)) {
            index.newFile(layout.rankedIndexTable(), TableLayout.RANKED_FAMILY); // one file: the cells come sorted
            YearMonth month = YearMonth.from(FIRST);
            long[] totals = new long[keys];
            List<Cell> buf = new ArrayList<>(3 * keys);
            RankedIndexWriter.RowSink sink = (row, q, v) -> buf.add(new Cell(row, q, v));
            RankedIndexWriter.Digest[] digests = new RankedIndexWriter.Digest[DAYS]; // each day list's digest, for its pointer
            for (int d = 0; d < DAYS; d++) {
                digests[d] = new RankedIndexWriter.Digest(sink);
            }
            for (int d = 0; d < DAYS; d++) {
                LocalDate day = FIRST.plusDays(d);
                buf.clear();
                for (int k = 0; k < keys; k++) {
                    long[] v = new long[metricNames.size()];
                    v[imp] = value(weight, k, d);
                    totals[k] += v[imp];
                    entries += RankedIndexWriter.dayRows(campaign, day, 1, metricNames, series.get(k), v, digests[d]);
                }
                Collections.sort(buf);
                for (Cell c : buf) {
                    index.append(new KeyValue(c.row(), TableLayout.RANKED_FAMILY, c.qualifier(), loadedAt, KeyValue.Type.Put, c.value()));
                }
                System.err.printf("day list %s written at %.1f s%n", day, (System.nanoTime() - t0) / 1e9);
            }
            buf.clear();
            for (int k = 0; k < keys; k++) {
                long[] v = new long[metricNames.size()];
                v[imp] = totals[k];
                entries += RankedIndexWriter.monthRows(campaign, month, 1, metricNames, series.get(k), v, sink);
            }
            long[] dayGens = new long[month.lengthOfMonth()];
            Arrays.fill(dayGens, 1);
            for (int d = 0; d < DAYS; d++) {
                RankedIndexWriter.dayPointer(campaign, FIRST.plusDays(d), 1, digests[d].value(), sink);
            }
            RankedIndexWriter.monthPointer(campaign, month, 1, dayGens, sink);
            Collections.sort(buf);
            for (Cell c : buf) {
                index.append(new KeyValue(c.row(), TableLayout.RANKED_FAMILY, c.qualifier(), loadedAt, KeyValue.Type.Put, c.value()));
            }
            buf.clear();
            index.load();
            cells += index.cells();
        }
        long t2 = System.nanoTime();
        DayStatusStore meta = new DayStatusStore(hbase.connection(), layout, Clock.systemUTC());
        for (int d = 0; d < DAYS; d++) {
            meta.markClosing(FIRST.plusDays(d));
            meta.markReconciled(FIRST.plusDays(d), "{}");
        }
        report.append(String.format("load: counters %,d cells + DuckDB rows %.1f s; index %,d entries (day lists and the month list) %.1f s;"
                        + " %,d cells bulk-loaded in all, %.0f cells/s%n", (long) keys * (DAYS + 1), (t1 - t0) / 1e9, entries,
                (t2 - t1) / 1e9, cells, cells / ((t2 - t0) / 1e9)));
        LocalDateTime start = LocalDateTime.of(2026, 10, 31, 12, 0);
        Random rnd = new Random(31);
        try (BufferedMutator out = hbase.connection().getBufferedMutator(layout.counterTable(creative));
             DuckDBAppender app = ((DuckDBConnection) duck).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "h")) {
            for (int h = 0; h < 48; h++) {
                LocalDateTime hour = start.plusHours(h);
                long v = 1000 + rnd.nextInt(5000);
                out.mutate(new Put(codec.counterKey(creative, Granularity.HOUR, hour.toEpochSecond(ZoneOffset.UTC) / 60,
                        List.of("adv-0", "cmp-0", "cr-0"))).addColumn(TableLayout.COUNTER_FAMILY, impressions, Bytes.toBytes(v)));
                app.beginRow();
                app.append(hour);
                app.append("adv-0");
                app.append("cmp-0");
                app.append("cr-0");
                app.append(v);
                app.endRow();
            }
        }
        return cells;
    }
}
