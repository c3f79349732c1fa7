package io.adreport.report.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A 1,000,000-row export through HTTP, against the mini cluster with the default cube's 16 salt
 * buckets: 1,000,000 {@code campaign} DAY rows of one UTC day (1,000 advertisers × 1,000
 * campaigns), written with Puts at codec-built keys, then
 * {@code granularity=day&groupBy=advertiser,campaign} as {@code format=ndjson} and
 * {@code format=csv}. For each: time to the first byte, to the first row, total, rows/s, and the
 * live heap of the JVM (after a forced GC) at a quarter, half and three quarters of the stream
 * minus before it — the server's retained memory, since the client keeps nothing. The floor, in the same run: a bare
 * parallel scan of the same rows through the HBase client (16 salt-bucket scans, rows counted
 * and impressions summed), no HTTP, no formatting. Every export is checked: 1,000,000 rows and
 * the impressions total of what was written.
 *
 * <p>Run: {@code mvn -B -o verify -pl report-api -am -Dtest=ExportBenchmarkTest -Dbench=true
 * -Dsurefire.failIfNoSpecifiedTests=false}; the numbers go to {@code target/export-bench.txt}.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class ExportBenchmarkTest {
    private static final int ROWS = 1_000_000;
    private static final long DAY_MINUTE = Instant.parse("2026-11-01T00:00:00Z").getEpochSecond() / 60;

    @Test
    void one_million_row_export_ndjson_and_csv(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        String ns = hbase.freshNamespace("exportbench");
        TableLayout layout = new TableLayout(cube, ns);
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        long t0 = System.nanoTime();
        long total = load(hbase.connection(), cube, layout);
        StringBuilder report = new StringBuilder(String.format("loaded %,d campaign DAY rows in %.1f s%n", ROWS, (System.nanoTime() - t0) / 1e9));

        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, Clock.systemUTC());
        String key = deps.keys().create("analyst");
        Javalin app = ReportApi.create(deps).start("127.0.0.1", 0);
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + app.port() + "/v1/reports/campaign?from=2026-11-01&to=2026-11-02&granularity=day"
                + "&groupBy=advertiser,campaign&metrics=impressions,clicks&format=";
        try {
            for (int run = 1; run <= 2; run++) {
                report.append(floor(hbase.connection(), cube, layout, total, run));
                report.append(export(http, base + "ndjson", key, total, "ndjson", run));
                report.append(export(http, base + "csv", key, total, "csv", run));
            }
            report.append(String.format("load average at the end: %.2f on %d cores%n",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), Runtime.getRuntime().availableProcessors()));
            Files.writeString(Path.of("target", "export-bench.txt"), report);
            System.err.print(report);
        } finally {
            app.stop();
        }
    }

    /** The floor: 16 parallel salt-bucket scans of the same rows, counted and summed. */
    private static String floor(Connection connection, Cube cube, TableLayout layout, long total, int run) throws Exception {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        long t0 = System.nanoTime();
        try {
            List<Future<long[]>> parts = new ArrayList<>();
            for (int s = 0; s < codec.saltBuckets(); s++) {
                KeyRange r = codec.counterTimeRange(s, Granularity.DAY, DAY_MINUTE, DAY_MINUTE + 1440);
                parts.add(pool.submit(() -> {
                    long[] out = new long[2];
                    Scan scan = new Scan().withStartRow(r.start()).withStopRow(r.stop()).setCaching(1000)
                            .addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("impressions"))
                            .addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("clicks"));
                    try (Table t = connection.getTable(layout.counterTable(campaign)); ResultScanner rs = t.getScanner(scan)) {
                        for (Result res : rs) {
                            out[0]++;
                            out[1] += Bytes.toLong(res.getValue(TableLayout.COUNTER_FAMILY, Bytes.toBytes("impressions")));
                        }
                    }
                    return out;
                }));
            }
            long rows = 0;
            long sum = 0;
            for (Future<long[]> f : parts) {
                rows += f.get()[0];
                sum += f.get()[1];
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            assertEquals(ROWS, rows);
            assertEquals(total, sum);
            return String.format("run %d floor: bare parallel scan, 16 salt buckets, %,d rows: total %.2f s, %,.0f rows/s%n",
                    run, rows, secs, rows / secs);
        } finally {
            pool.shutdown();
        }
    }

    private static String export(HttpClient http, String url, String key, long total, String format, int run) throws Exception {
        long before = liveHeap();
        long t0 = System.nanoTime();
        HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, r.statusCode());
        long headers = System.nanoTime() - t0;
        long firstByte = 0;
        long firstRow = 0;
        long rows = 0;
        long sum = 0;
        long[] heap = new long[3];
        boolean csv = format.equals("csv");
        try (InputStream in = r.body()) {
            int b = in.read();
            firstByte = System.nanoTime() - t0;
            BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
            String first = lines.readLine();
            String line = (char) b + (first == null ? "" : first);
            if (csv) {
                line = lines.readLine(); // after the header
            }
            firstRow = System.nanoTime() - t0;
            for (; line != null; line = lines.readLine()) {
                if (!csv && line.startsWith("{\"rows\"")) {
                    break; // the trailer
                }
                rows++;
                sum += impressions(line, csv);
                if (rows % (ROWS / 4) == 0 && rows < ROWS) {
                    heap[(int) (rows / (ROWS / 4)) - 1] = liveHeap() - before;
                }
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertEquals(ROWS, rows, format);
        assertEquals(total, sum, format);
        return String.format("run %d %s export over HTTP, %,d rows: headers %.1f ms, first byte %.1f ms, first row %.1f ms, "
                        + "total %.2f s, %,.0f rows/s, live heap growth at 1/4, 1/2, 3/4 of the stream %+.1f / %+.1f / %+.1f MB%n", run, format,
                rows, headers / 1e6, firstByte / 1e6, firstRow / 1e6, secs, rows / secs, heap[0] / 1e6, heap[1] / 1e6, heap[2] / 1e6);
    }

    /** The impressions of one row: the first metric (csv: the column after advertiser and campaign). */
    private static long impressions(String line, boolean csv) {
        if (csv) {
            String[] cells = line.split(",");
            return Long.parseLong(cells[3]);
        }
        int i = line.indexOf("\"impressions\":") + "\"impressions\":".length();
        int j = i;
        while (j < line.length() && Character.isDigit(line.charAt(j))) {
            j++;
        }
        return Long.parseLong(line.substring(i, j));
    }

    private static long liveHeap() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** 1,000,000 campaign DAY rows on one day, impressions skewed, clicks = impressions / 50; returns total impressions. */
    private static long load(Connection connection, Cube cube, TableLayout layout) throws Exception {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        Random rnd = new Random(11);
        long total = 0;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            List<Put> chunk = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                long impressions = 1 + (long) (Math.pow(rnd.nextDouble(), 4) * 1_000_000);
                total += impressions;
                Put p = new Put(codec.counterKey(campaign, Granularity.DAY, DAY_MINUTE, List.of("adv-" + (i % 1000), "cmp-" + i)));
                p.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("impressions"), Bytes.toBytes(impressions));
                p.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("clicks"), Bytes.toBytes(impressions / 50));
                p.setDurability(org.apache.hadoop.hbase.client.Durability.SKIP_WAL);
                chunk.add(p);
                if (chunk.size() == 5_000 || i == ROWS - 1) {
                    List<Put> part = chunk;
                    chunk = new ArrayList<>();
                    done.add(pool.submit(() -> {
                        try (Table t = connection.getTable(layout.counterTable(campaign))) {
                            t.put(part);
                        }
                        return null;
                    }));
                    if (done.size() > 8) {
                        done.remove(0).get(); // at most 8 chunks in flight: the Puts are not all held at once
                    }
                }
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        return total;
    }
}
