package io.adreport.benchmarks;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.hbase.HBaseEndpoint;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The load generator of {@code run-series.sh}: one campaign's hourly series over the last 72
 * hours (the current hour included), asked through HTTP of report APIs running in other
 * processes, request by request, beside its floor in the same run: the same 72 counter rows read
 * by one skip-scan through the HBase client (what the API's counter read does, without HTTP,
 * auth, planning, live counts or JSON).
 *
 * <pre>SeriesLatency DATA_DIR ADVERTISER CAMPAIGN WARMUP_S REQUESTS LABEL=URL...</pre>
 *
 * Each round asks every API once and reads the floor once, in an order that rotates by round,
 * one request at a time (no overlap). The first WARMUP_S seconds are not timed. Prints p50 / p90 /
 * p99 / max per target, and the series' impression total each API answered last (live counts
 * on shows what the aggregators have not flushed yet; off shows the stored counters alone).
 * The analyst key is read from {@code DATA_DIR/analyst.key}, HBase found by {@code DATA_DIR/zk.port};
 * the cube is the default one.
 */
public final class SeriesLatency {
    private static final Pattern IMPRESSIONS = Pattern.compile("\"impressions\"\\s*:\\s*(\\d+)");

    private SeriesLatency() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("usage: SeriesLatency DATA_DIR ADVERTISER CAMPAIGN WARMUP_S REQUESTS LABEL=URL...");
            System.exit(2);
        }
        Path data = Path.of(args[0]);
        String advertiser = args[1];
        String campaign = args[2];
        int warmupSeconds = Integer.parseInt(args[3]);
        int requests = Integer.parseInt(args[4]);
        Map<String, String> apis = new LinkedHashMap<>();
        for (int i = 5; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            apis.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        String key = Files.readString(data.resolve("analyst.key")).trim();
        Instant to = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        Instant from = to.minus(Duration.ofHours(72));
        String query = "/v1/reports/campaign?from=" + from + "&to=" + to + "&granularity=hour&metrics=impressions,clicks,ctr"
                + "&advertiser=" + URLEncoder.encode(advertiser, StandardCharsets.UTF_8)
                + "&campaign=" + URLEncoder.encode(campaign, StandardCharsets.UTF_8);

        Cube cube = CubeLoader.defaultCube();
        Rollup rollup = cube.rollup("campaign").orElseThrow();
        TableLayout layout = new TableLayout(cube, System.getProperty("series.namespace", cube.name()));
        RowKeyCodec codec = new RowKeyCodec(cube);
        List<byte[]> keys = new ArrayList<>();
        for (long m = from.getEpochSecond() / 60; m < to.getEpochSecond() / 60; m += 60) {
            keys.add(codec.counterKey(rollup, Granularity.HOUR, m, List.of(advertiser, campaign)));
        }
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<String> targets = new ArrayList<>(apis.keySet());
        targets.add("floor");
        Map<String, long[]> nanos = new LinkedHashMap<>();
        targets.forEach(t -> nanos.put(t, new long[requests]));
        Map<String, String> lastTotal = new LinkedHashMap<>();
        int[] floorRows = new int[1];
        try (Connection hbase = ConnectionFactory.createConnection(HBaseEndpoint.configuration(data));
             Table table = hbase.getTable(layout.counterTable(rollup))) {
            System.out.printf("series: %s (72 hourly rows), floor: one skip-scan of the same %d rows, %s%n", query, keys.size(),
                    layout.counterTable(rollup));
            long warmEnd = System.nanoTime() + Duration.ofSeconds(warmupSeconds).toNanos();
            int warmRounds = 0;
            for (int round = 0; System.nanoTime() < warmEnd; round++, warmRounds++) {
                for (int t = 0; t < targets.size(); t++) {
                    ask(targets.get((t + round) % targets.size()), apis, http, key, query, table, keys, lastTotal, floorRows);
                }
            }
            System.out.printf("warm-up: %d rounds in %d s%n", warmRounds, warmupSeconds);
            for (int round = 0; round < requests; round++) {
                for (int t = 0; t < targets.size(); t++) {
                    String target = targets.get((t + round) % targets.size());
                    nanos.get(target)[round] = ask(target, apis, http, key, query, table, keys, lastTotal, floorRows);
                }
            }
        }
        System.out.printf("%d requests each, one at a time, rounds rotating the order; ms:%n", requests);
        for (String t : targets) {
            long[] n = nanos.get(t).clone();
            Arrays.sort(n);
            System.out.printf("  %-10s p50 %6.2f  p90 %6.2f  p99 %6.2f  max %7.2f  %s%n", t, ms(n, 0.50), ms(n, 0.90), ms(n, 0.99),
                    n[n.length - 1] / 1e6, t.equals("floor") ? floorRows[0] + " rows" : "impressions " + lastTotal.get(t));
        }
    }

    private static long ask(String target, Map<String, String> apis, HttpClient http, String key, String query, Table table,
                            List<byte[]> keys, Map<String, String> lastTotal, int[] floorRows) throws Exception {
        long t0 = System.nanoTime();
        if (target.equals("floor")) {
            int n = 0;
            try (ResultScanner rs = table.getScanner(skipScan(keys))) {
                for (Result r : rs) {
                    n++;
                }
            }
            long took = System.nanoTime() - t0;
            floorRows[0] = n;
            return took;
        }
        HttpRequest r = HttpRequest.newBuilder(URI.create(apis.get(target) + query)).header("Authorization", "Bearer " + key)
                .timeout(Duration.ofSeconds(30)).GET().build();
        HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
        long took = System.nanoTime() - t0;
        if (resp.statusCode() != 200) {
            throw new IllegalStateException(target + ": HTTP " + resp.statusCode() + " " + resp.body());
        }
        long sum = 0;
        Matcher m = IMPRESSIONS.matcher(resp.body());
        while (m.find()) {
            sum += Long.parseLong(m.group(1));
        }
        lastTotal.put(target, Long.toString(sum));
        return took;
    }

    /** The product's fixed-series read: one scan from the first to the last key, seeking row to row. */
    private static Scan skipScan(List<byte[]> keys) {
        List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>(keys.size());
        for (byte[] k : keys) {
            ranges.add(new MultiRowRangeFilter.RowRange(k, true, k, true));
        }
        byte[] first = keys.stream().min(Bytes.BYTES_COMPARATOR).orElseThrow();
        byte[] last = keys.stream().max(Bytes.BYTES_COMPARATOR).orElseThrow();
        return new Scan().withStartRow(first).withStopRow(last, true).setFilter(new MultiRowRangeFilter(ranges))
                .setCaching(keys.size()).setLimit(keys.size()).addFamily(TableLayout.COUNTER_FAMILY);
    }

    private static double ms(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }
}
