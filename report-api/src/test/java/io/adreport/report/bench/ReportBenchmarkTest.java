package io.adreport.report.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Report latency against the mini cluster, end to end through HTTP (parse, plan, HBase reads,
 * merge, order, JSON), with the default cube's 16 salt buckets:
 * <ul>
 *   <li>a one-key 48-hour hourly series: {@code creative} rollup, every dimension fixed, so 48
 *       point gets of HOUR rows in one multi-get;</li>
 *   <li>an exact top-100 over one UTC day of 100,000 campaign keys: 16 parallel salt-bucket scans
 *       of DAY rows, every key summed, then ordered and cut.</li>
 * </ul>
 * Run: {@code mvn -B -o -q install -pl report-api -Dtest=ReportBenchmarkTest -Dbench=true}; the
 * numbers go to {@code target/report-bench.txt}. Not a timed assertion: it only checks that the
 * top-100 is the right one.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class ReportBenchmarkTest {
    private static final int KEYS = 100_000;
    private static final long DAY_MINUTE = Instant.parse("2026-11-01T00:00:00Z").getEpochSecond() / 60;

    @Test
    void series_and_top_100_latency(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        String ns = hbase.freshNamespace("bench");
        TableLayout layout = new TableLayout(cube, ns);
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        long[] impressions = load(hbase.connection(), cube, layout);

        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, Clock.systemUTC());
        String key = deps.keys().create("analyst");
        Javalin app = ReportApi.create(deps).start("127.0.0.1", 0);
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + app.port();
        String series = base + "/v1/reports/creative?from=2026-10-31T12:00:00Z&to=2026-11-02T12:00:00Z&granularity=hour"
                + "&advertiser=adv-0&campaign=cmp-0&creative=cr-0&metrics=impressions,clicks,ctr";
        String top = base + "/v1/reports/campaign?from=2026-11-01&to=2026-11-02&granularity=all&groupBy=advertiser,campaign"
                + "&metrics=impressions,clicks,ctr&orderBy=-impressions&limit=100";
        try {
            JsonNode topBody = new ObjectMapper().readTree(get(http, top, key));
            long[] sorted = Arrays.stream(impressions).boxed().sorted(Comparator.reverseOrder()).mapToLong(Long::longValue).limit(100).toArray();
            for (int i = 0; i < 100; i++) {
                assertEquals(sorted[i], topBody.get("rows").get(i).get("metrics").get("impressions").asLong(), "rank " + i);
            }
            assertEquals(48, new ObjectMapper().readTree(get(http, series, key)).get("rows").size());
            StringBuilder report = new StringBuilder();
            report.append(measure("one-key 48-hour hourly series (48 point gets)", http, series, key, 50, 300));
            report.append(measure("exact top-100 of 100,000 keys over one day (16 scans)", http, top, key, 5, 40));
            // where the time of a report goes: the slowest of its 16 scans bounds it
            metrics.scrape().lines().filter(l -> l.startsWith("adreport_report_hbase_read_seconds_sum")
                    || l.startsWith("adreport_report_hbase_read_seconds_count")).forEach(l -> report.append(l).append('\n'));
            report.append(String.format("load average at the end: %.2f on %d cores%n",
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    Runtime.getRuntime().availableProcessors()));
            Files.writeString(Path.of("target", "report-bench.txt"), report);
            System.err.print(report);
        } finally {
            app.stop();
        }
    }

    private static String measure(String what, HttpClient http, String url, String key, int warmup, int runs) throws Exception {
        for (int i = 0; i < warmup; i++) {
            get(http, url, key);
        }
        long[] nanos = new long[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            get(http, url, key);
            nanos[i] = System.nanoTime() - t0;
        }
        Arrays.sort(nanos);
        return String.format("%s: n=%d p50=%.1f ms p99=%.1f ms max=%.1f ms%n", what, runs,
                nanos[runs / 2] / 1e6, nanos[(int) Math.ceil(runs * 0.99) - 1] / 1e6, nanos[runs - 1] / 1e6);
    }

    private static String get(HttpClient http, String url, String key) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** 100,000 campaign keys on one day (DAY rows) and one creative series over 48 hours (HOUR rows). */
    private static long[] load(Connection connection, Cube cube, TableLayout layout) throws Exception {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        Random rnd = new Random(7);
        long[] impressions = new long[KEYS];
        List<Row> rows = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
            impressions[i] = 1 + (long) (Math.pow(rnd.nextDouble(), 4) * 1_000_000);
            Increment inc = new Increment(codec.counterKey(campaign, Granularity.DAY, DAY_MINUTE,
                    List.of("adv-" + (i % 1000), "cmp-" + i)));
            inc.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("impressions"), impressions[i]);
            inc.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("clicks"), impressions[i] / 50);
            rows.add(inc);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int chunk = 0; chunk < KEYS; chunk += 2_000) {
                List<Row> part = rows.subList(chunk, Math.min(KEYS, chunk + 2_000));
                done.add(pool.submit(() -> {
                    try (Table t = connection.getTable(layout.counterTable(campaign))) {
                        t.batch(part, new Object[part.size()]);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        Rollup creative = cube.rollup("creative").orElseThrow();
        long from = Instant.parse("2026-10-31T12:00:00Z").getEpochSecond() / 60;
        List<Row> series = new ArrayList<>();
        IntStream.range(0, 48).forEach(h -> {
            Increment inc = new Increment(codec.counterKey(creative, Granularity.HOUR, from + h * 60L, List.of("adv-0", "cmp-0", "cr-0")));
            inc.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("impressions"), 1000 + h);
            inc.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("clicks"), 10 + h);
            series.add(inc);
        });
        try (Table t = connection.getTable(layout.counterTable(creative))) {
            t.batch(series, new Object[series.size()]);
        }
        return impressions;
    }
}
