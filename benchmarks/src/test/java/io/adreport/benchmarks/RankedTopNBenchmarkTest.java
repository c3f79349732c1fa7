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
import io.adreport.schema.meta.MetaStore;
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
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Durability;
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
 * a uniform 0.5–1.5 factor, at least 1, so every key has a row every day) on 31 days
 * 2026-10-01..31, reconciled and indexed by the production {@link RankedIndexWriter}, plus one
 * live day 2026-11-01 (counters only); one creative series of 48 HOUR rows. Counters are loaded
 * directly as DAY rows (Puts, WAL skipped), not pushed through ingest and the job: at this scale
 * that would take hours here. DuckDB gets the same (day, advertiser, campaign, impressions) rows
 * and the same hourly rows.
 *
 * <p>Run: {@code mvn -B -o verify -pl benchmarks -am -Dbench=true -Dtest=RankedTopNBenchmarkTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtopn.keys=100000} (or {@code benchmarks/run-topn.sh});
 * the numbers go to {@code benchmarks/target/topn-bench-K.txt}. Answers are checked equal; no
 * timed assertion.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class RankedTopNBenchmarkTest {
    private static final LocalDate FIRST = LocalDate.parse("2026-10-01");
    private static final int DAYS = 31;
    private static final LocalDate LIVE = FIRST.plusDays(DAYS);
    private static final int ADVERTISERS = 100;
    private static final int RUNS = Integer.getInteger("topn.runs", 120);

    @Test
    void top_100_latency_beside_duckdb(MiniHBase hbase) throws Exception {
        int keys = Integer.getInteger("topn.keys", 100_000);
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("topnbench"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        StringBuilder report = new StringBuilder();
        report.append(String.format("ranked top-N benchmark: %,d keys x %d reconciled days + 1 live day, %d cores, load average at start %.2f%n",
                keys, DAYS, Runtime.getRuntime().availableProcessors(), load()));

        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            long t0 = System.nanoTime();
            load(hbase, cube, layout, duck, keys);
            long t1 = System.nanoTime();
            MetaStore meta = new MetaStore(hbase.connection(), layout, Clock.systemUTC());
            RankedIndexWriter writer = new RankedIndexWriter(hbase.connection(), layout);
            long entries = 0;
            for (int d = 0; d < DAYS; d++) {
                LocalDate day = FIRST.plusDays(d);
                meta.markClosing(day);
                entries += writer.write(day).entries();
                meta.markReconciled(day, "{}");
            }
            long t2 = System.nanoTime();
            report.append(String.format("load: counters %.1f s (HBase and DuckDB), index %.1f s (%,d entries, %.0f entries/s)%n",
                    (t1 - t0) / 1e9, (t2 - t1) / 1e9, entries, entries / ((t2 - t1) / 1e9)));

            Metrics metrics = new Metrics();
            ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.defaults(), metrics,
                    Clock.systemUTC());
            String analyst = deps.keys().create("analyst");
            String tenant = deps.keys().create("advertiser:adv-7");
            Javalin app = ReportApi.create(deps).start("127.0.0.1", 0);
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + app.port() + "/v1/reports/";
            try {
                String top = "campaign?granularity=all&groupBy=advertiser,campaign&metrics=impressions&orderBy=-impressions&limit=100";
                String sqlTop = "SELECT advertiser, campaign, sum(impressions) s FROM c WHERE day >= ? AND day < ? %s"
                        + " GROUP BY advertiser, campaign ORDER BY s DESC, advertiser, campaign LIMIT 100";
                report.append(compare("top-100 over 31 reconciled days", http, analyst,
                        base + top + "&from=2026-10-01&to=2026-11-01", duck, String.format(sqlTop, ""), "2026-10-01", "2026-11-01", null));
                report.append(compare("top-100 of one reconciled day", http, analyst,
                        base + top + "&from=2026-10-15&to=2026-10-16", duck, String.format(sqlTop, ""), "2026-10-15", "2026-10-16", null));
                report.append(compare("tenant (advertiser key) top-100 over 31 days", http, tenant,
                        base + top.replace("groupBy=advertiser,campaign", "groupBy=advertiser,campaign") + "&from=2026-10-01&to=2026-11-01",
                        duck, String.format(sqlTop, "AND advertiser = ?"), "2026-10-01", "2026-11-01", "adv-7"));
                report.append(compareSeries(http, analyst, base + "creative?from=2026-10-31T12:00:00Z&to=2026-11-02T12:00:00Z"
                        + "&granularity=hour&advertiser=adv-0&campaign=cmp-0&creative=cr-0&metrics=impressions", duck));
                report.append(compare("top-100 over 31 reconciled days + the live day (live day scanned)", http, analyst,
                        base + top + "&from=2026-10-01&to=2026-11-02", duck, String.format(sqlTop, ""), "2026-10-01", "2026-11-02", null,
                        Math.max(10, RUNS / 6)));
                metrics.scrape().lines().filter(l -> l.startsWith("adreport_report_plan_total")
                        || l.startsWith("adreport_report_topn_")).forEach(l -> report.append("  ").append(l).append('\n'));
            } finally {
                app.stop();
            }
        }
        report.append(String.format("load average at the end: %.2f%n", load()));
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "topn-bench-" + keys + ".txt"), report);
        System.err.print(report);
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
        long[] a = new long[runs];
        long[] b = new long[runs];
        for (int i = 0; i < Math.min(20, runs); i++) {
            get(http, url, key);
            duckTop(duck, sql, from, to, advertiser);
        }
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            get(http, url, key);
            long t1 = System.nanoTime();
            duckTop(duck, sql, from, to, advertiser);
            a[i] = t1 - t0;
            b[i] = System.nanoTime() - t1;
        }
        return line(what, a, b);
    }

    private static String compareSeries(HttpClient http, String key, String url, Connection duck) throws Exception {
        String sql = "SELECT hour, sum(impressions) FROM h WHERE advertiser = 'adv-0' AND campaign = 'cmp-0' AND creative = 'cr-0'"
                + " AND hour >= TIMESTAMP '2026-10-31 12:00:00' AND hour < TIMESTAMP '2026-11-02 12:00:00' GROUP BY hour ORDER BY hour";
        List<Long> api = new ArrayList<>();
        new ObjectMapper().readTree(get(http, url, key)).get("rows").forEach(r -> api.add(r.get("metrics").get("impressions").asLong()));
        assertEquals(duckSeries(duck, sql), api, "series");
        long[] a = new long[RUNS];
        long[] b = new long[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t0 = System.nanoTime();
            get(http, url, key);
            long t1 = System.nanoTime();
            duckSeries(duck, sql);
            a[i] = t1 - t0;
            b[i] = System.nanoTime() - t1;
        }
        return line("one-key 48-hour hourly series", a, b);
    }

    private static String line(String what, long[] api, long[] duck) {
        Arrays.sort(api);
        Arrays.sort(duck);
        int n = api.length;
        double ap99 = api[(int) Math.ceil(n * 0.99) - 1] / 1e6;
        double dp99 = duck[(int) Math.ceil(n * 0.99) - 1] / 1e6;
        return String.format("%-70s n=%d  adreport p50 %7.1f ms p99 %7.1f ms | duckdb p50 %7.1f ms p99 %7.1f ms | p99 ratio adreport/duckdb %.2f%n",
                what, n, api[n / 2] / 1e6, ap99, duck[n / 2] / 1e6, dp99, ap99 / dp99);
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

    private static String get(HttpClient http, String url, String key) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(url + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** The same rows into HBase (DAY and HOUR counter rows) and DuckDB (tables c and h). */
    private static void load(MiniHBase hbase, Cube cube, TableLayout layout, Connection duck, int keys) throws Exception {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        Rollup creative = cube.rollup("creative").orElseThrow();
        byte[] impressions = Bytes.toBytes("impressions");
        try (Statement st = duck.createStatement()) {
            st.execute("CREATE TABLE c (day DATE, advertiser VARCHAR, campaign VARCHAR, impressions BIGINT)");
            st.execute("CREATE TABLE h (hour TIMESTAMP, advertiser VARCHAR, campaign VARCHAR, creative VARCHAR, impressions BIGINT)");
        }
        double[] weight = new double[keys];
        for (int k = 0; k < keys; k++) {
            weight[k] = 1e6 / Math.pow(k + 1, 1.07);
        }
        Random rnd = new Random(31);
        BufferedMutatorParams params = new BufferedMutatorParams(layout.counterTable(campaign)).writeBufferSize(8 << 20);
        try (BufferedMutator out = hbase.connection().getBufferedMutator(params);
             DuckDBAppender app = ((DuckDBConnection) duck).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "c")) {
            for (int d = 0; d <= DAYS; d++) {
                LocalDate day = FIRST.plusDays(d);
                long minute = day.toEpochDay() * 1440;
                for (int k = 0; k < keys; k++) {
                    long v = 1 + (long) (weight[k] * (0.5 + rnd.nextDouble()));
                    String adv = "adv-" + (k % ADVERTISERS);
                    String cmp = "cmp-" + k;
                    Put p = new Put(codec.counterKey(campaign, Granularity.DAY, minute, List.of(adv, cmp)));
                    p.addColumn(TableLayout.COUNTER_FAMILY, impressions, Bytes.toBytes(v));
                    p.setDurability(Durability.SKIP_WAL);
                    out.mutate(p);
                    app.beginRow();
                    app.append(day);
                    app.append(adv);
                    app.append(cmp);
                    app.append(v);
                    app.endRow();
                }
            }
        }
        LocalDateTime start = LocalDateTime.of(2026, 10, 31, 12, 0);
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
    }
}
