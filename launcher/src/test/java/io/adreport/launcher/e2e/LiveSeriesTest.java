package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The one-key series (every dimension of the rollup fixed: a campaign's hourly chart) over four
 * days, three of them past and never closed, as the report API reads it: asking the aggregator
 * for its live counts while it reads HBase, and only for the days still live. Expected counts
 * are this test's own tally of the events it posted, per UTC day.
 * <ol>
 *   <li>Nothing flushed: every day, past days included (no day-status row in meta means live),
 *       shows its live counts, though HBase holds no row of the series.</li>
 *   <li>Flushed, then more posted: stored plus live, nothing twice.</li>
 *   <li>The two oldest days marked closing: once the report API has seen them closed it no longer
 *       asks for them (the aggregator's answer holds only the rows of the two live days, though it
 *       remembers theirs too).</li>
 *   <li>The aggregator restarted at the same address (a new writer id): the series is exact again
 *       with no first call for the id.</li>
 * </ol>
 */
@ExtendWith(HBaseExtension.class)
class LiveSeriesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void a_fixed_series_shows_live_counts_of_every_live_day_and_asks_nothing_of_days_seen_closed(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = freshTables(hbase, cube, "series");
        Clock clock = Clock.systemUTC();
        EventParser parser = parser(cube, clock);
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Map<String, String> settings = Map.of("ingest.port", String.valueOf(port), "aggregator.id", "series",
                "flush.interval.ms", "60000", "dayclose.poll.ms", "60000", "heartbeat.interval.ms", "500");
        Aggregator aggregator = Aggregator.start(hbase.connection(), layout, parser, AggregatorConfig.of(settings), clock);
        Javalin api = null;
        try {
            Metrics apiMetrics = new Metrics();
            ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(),
                    ReportConfig.of(Map.of("report.live.timeout.ms", "10000")), apiMetrics, clock); // no answer late on a loaded machine
            String analyst = deps.keys().create("analyst");
            api = ReportApi.create(deps).start(0);
            LocalDate today = LocalDate.now(ZoneOffset.UTC);
            LocalDate[] days = {today.minusDays(3), today.minusDays(2), today.minusDays(1), today};
            int[] hourOf = {5, 10, 20, 0}; // one hour per day; today's is its first, already begun
            String series = "/v1/reports/campaign?from=" + days[0] + "&to=" + today.plusDays(1)
                    + "&granularity=hour&metrics=impressions&advertiser=adv-1&campaign=c-1";
            Map<String, Long> posted = new TreeMap<>(); // this test's tally, per UTC day
            int[] n = {0};
            java.util.function.BiConsumer<Integer, Integer> post = (day, count) -> {
                postImpressions(port, "e" + n[0]++ + "-", count, days[day].atTime(hourOf[day], 0).toInstant(ZoneOffset.UTC));
                posted.merge(days[day].toString(), (long) count, Long::sum);
            };

            // 1. Nothing flushed: HBase holds no row of the series; every day is live.
            for (int d = 0; d < days.length; d++) {
                post.accept(d, d + 2);
            }
            assertEquals(posted, perDay(get(api.port(), series, analyst)), "live counts of every day, nothing flushed yet");

            // 2. Flushed, then more of the two newest days: stored cells plus live totals, each event once.
            aggregator.flushNow();
            post.accept(2, 3);
            post.accept(3, 3);
            assertEquals(posted, perDay(get(api.port(), series, analyst)), "stored plus live after a flush");

            // 3. The two oldest days (all flushed) close. Whether or not the aggregator has seen it
            // (it polls meta once a minute), it remembers their rows' totals and would answer them.
            deps.days().markClosing(days[0]);
            deps.days().markClosing(days[1]);
            assertEquals(posted, perDay(get(api.port(), series, analyst)), "closed days read as stored");
            Metrics.Counter liveRows = apiMetrics.counter("adreport_report_live_rows_total", "");
            Metrics.Counter closedRows = apiMetrics.counter("adreport_report_live_closed_rows_total", "");
            long rowsBefore = liveRows.get();
            long closedBefore = closedRows.get();
            assertEquals(posted, perDay(get(api.port(), series, analyst)), "closed days read as stored, again");
            assertEquals(2, liveRows.get() - rowsBefore, "the answer holds the rows of the two live days only (one hour each):"
                    + " the closed days, seen closed, were not asked for");
            assertEquals(0, closedRows.get() - closedBefore, "no live row of a closed day was answered, so none left out");

            // 4. A new writer at the same address, with no call for its id first.
            aggregator.close(); // flushes
            aggregator = Aggregator.start(hbase.connection(), layout, parser, AggregatorConfig.of(settings), clock);
            post.accept(3, 5);
            aggregator.flushNow();
            post.accept(2, 6);
            post.accept(3, 1);
            assertEquals(posted, perDay(get(api.port(), series, analyst)), "after a restart: stored plus live, the first report");
        } finally {
            if (api != null) {
                api.stop();
            }
            aggregator.close();
        }
    }

    /**
     * An aggregator older than the answer's next-writer field (its answers decode with 0 there),
     * here the real one behind a relay that answers in the older format: the report cannot check
     * its answer against a start-over racing the read, so it asks it again after the read, as the
     * two steps do, instead of leaving its live counts out of every fixed series.
     */
    @Test
    void an_aggregator_that_does_not_name_its_next_writer_still_counts_live_in_a_fixed_series(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = freshTables(hbase, cube, "older");
        Clock clock = Clock.systemUTC();
        Aggregator aggregator = startAggregator(hbase, layout, clock, "older");
        String behind = "http://localhost:" + aggregator.port() + LiveCounts.PATH;
        Javalin relay = Javalin.create().post(LiveCounts.PATH, ctx -> {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(behind)).header("Content-Type", LiveCounts.CONTENT_TYPE);
            if (ctx.header("Authorization") != null) {
                b.header("Authorization", ctx.header("Authorization"));
            }
            HttpResponse<byte[]> r = HTTP.send(b.POST(HttpRequest.BodyPublishers.ofByteArray(ctx.bodyAsBytes())).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            byte[] body = r.body();
            if (r.statusCode() == 200) {
                LiveCounts.Answer a = LiveCounts.decodeAnswer(body);
                byte[] now = LiveCounts.encode(new LiveCounts.Answer(a.writer(), a.metrics(), a.rows()));
                body = java.util.Arrays.copyOf(now, now.length - Long.BYTES - Integer.BYTES); // the older format ends before the next id
            }
            ctx.status(r.statusCode()).contentType(LiveCounts.CONTENT_TYPE).result(body);
        }).start(0);
        Javalin api = null;
        try {
            new HeartbeatStore(hbase.connection(), layout, clock).advertise("older", "http://localhost:" + relay.port());
            ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(),
                    ReportConfig.of(Map.of("report.live.timeout.ms", "10000")), new Metrics(), clock);
            String analyst = deps.keys().create("analyst");
            api = ReportApi.create(deps).start(0);
            LocalDate today = LocalDate.now(ZoneOffset.UTC);
            LocalDate yesterday = today.minusDays(1);
            String series = "/v1/reports/campaign?from=" + yesterday + "&to=" + today.plusDays(1)
                    + "&granularity=hour&metrics=impressions&advertiser=adv-1&campaign=c-1";
            Instant noonYesterday = yesterday.atTime(12, 0).toInstant(ZoneOffset.UTC);
            Instant startOfToday = today.atStartOfDay(ZoneOffset.UTC).toInstant();
            postImpressions(aggregator.port(), "a-", 4, noonYesterday);
            postImpressions(aggregator.port(), "b-", 3, startOfToday);
            assertEquals(Map.of(yesterday.toString(), 4L, today.toString(), 3L), perDay(get(api.port(), series, analyst)),
                    "live counts through an older aggregator, nothing flushed yet");
            aggregator.flushNow();
            postImpressions(aggregator.port(), "c-", 2, startOfToday);
            assertEquals(Map.of(yesterday.toString(), 4L, today.toString(), 5L), perDay(get(api.port(), series, analyst)),
                    "stored plus live through an older aggregator, each event once");
        } finally {
            if (api != null) {
                api.stop();
            }
            relay.stop();
            aggregator.close();
        }
    }

    /**
     * Writer totals bounded at 10,000 rows (buffer.max.cells 40,000): rounds of one hot series
     * (adv-1/c-1) beside three hundred cold campaigns each (about 2,400 new counter rows), flushed
     * after every round, pass the bound again and again. Each start-over keeps the rows touched last under their writer id, so the
     * hot series' rows keep one writer cell per metric while the cold rows are forgotten; the fixed
     * series (asked while reading) and a scan report of the advertiser (the two steps) stay equal to
     * this test's tally, flushed and unflushed counts alike, whatever id each row is under.
     */
    @Test
    void across_start_overs_the_hot_rows_keep_their_writer_cell_and_live_reports_stay_exact(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = freshTables(hbase, cube, "startover");
        Clock clock = Clock.systemUTC();
        Aggregator aggregator = startAggregator(hbase, layout, clock, "startover", "buffer.max.cells", "40000");
        Javalin api = null;
        try {
            ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(),
                    ReportConfig.of(Map.of("report.live.timeout.ms", "10000")), new Metrics(), clock);
            String analyst = deps.keys().create("analyst");
            api = ReportApi.create(deps).start(0);
            LocalDate yesterday = LocalDate.now(ZoneOffset.UTC).minusDays(1);
            Instant noon = yesterday.atTime(12, 0).toInstant(ZoneOffset.UTC);
            String series = "/v1/reports/campaign?from=" + yesterday + "&to=" + yesterday.plusDays(1)
                    + "&granularity=hour&metrics=impressions&advertiser=adv-1&campaign=c-1";
            String scan = "/v1/reports/campaign?from=" + yesterday + "&to=" + yesterday.plusDays(1)
                    + "&granularity=day&metrics=impressions&advertiser=adv-1";
            long posted = 0;
            int cold = 0;
            for (int round = 0; round < 16; round++) {
                postImpressions(aggregator.port(), "hot-" + round + "-", 3, noon.plusSeconds(10L * round));
                posted += 3;
                StringBuilder body = new StringBuilder();
                for (int i = 0; i < 300; i++, cold++) { // a campaign and a minute of its own: rows of their own
                    body.append("{\"type\":\"impression\",\"id\":\"cold-").append(cold).append("\",\"ts\":\"")
                            .append(yesterday.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(60L * (cold % 1440)))
                            .append("\",\"advertiser\":\"adv-2\",\"campaign\":\"k-").append(cold)
                            .append("\",\"creative\":\"cr-1\",\"publisher\":\"pub-").append(cold % 50)
                            .append("\",\"zone\":\"z-1\",\"country\":\"US\",\"deviceType\":\"mobile\",\"costMicros\":1000}\n");
                }
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + aggregator.port() + "/v1/events"))
                        .header("Content-Type", "application/x-ndjson").POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), r.body());
                aggregator.flushNow();
                postImpressions(aggregator.port(), "late-" + round + "-", 2, noon.plusSeconds(10L * round + 5));
                posted += 2;
                assertEquals(Map.of(yesterday.toString(), posted), perDay(get(api.port(), series, analyst)),
                        "round " + round + ": the fixed series, stored plus live");
                // The two steps: the first report after a start-over finds the writer's current id changed
                // and reads it as stored (never more than the truth); the next one knows the new ids.
                long first = perDay(get(api.port(), scan, analyst)).getOrDefault(yesterday.toString(), 0L);
                assertTrue(first <= posted, "round " + round + ": never more than the truth: " + first + " of " + posted);
                assertEquals(Map.of(yesterday.toString(), posted), perDay(get(api.port(), scan, analyst)),
                        "round " + round + ": the advertiser's scan report, stored plus live");
            }
            String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + aggregator.port() + "/metrics")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            double startsOver = metrics.lines().filter(l -> l.startsWith("adreport_writer_starts_over "))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst().orElse(0);
            assertTrue(startsOver >= 2, "the rounds passed the bound more than once: " + startsOver + " start-overs");
            aggregator.flushNow();
            int mostWriterCells = 0;
            try (org.apache.hadoop.hbase.client.Table t = hbase.connection().getTable(layout.counterTable("campaign"));
                 org.apache.hadoop.hbase.client.ResultScanner rs = t.getScanner(new org.apache.hadoop.hbase.client.Scan())) {
                for (org.apache.hadoop.hbase.client.Result row : rs) {
                    if (!org.apache.hadoop.hbase.util.Bytes.toStringBinary(row.getRow()).contains("adv-1")) {
                        continue;
                    }
                    Map<String, Integer> perMetric = new TreeMap<>();
                    for (org.apache.hadoop.hbase.Cell c : row.rawCells()) {
                        if (io.adreport.schema.counting.CounterValues.isWriterCell(c)) {
                            perMetric.merge(org.apache.hadoop.hbase.util.Bytes.toString(c.getQualifierArray(), c.getQualifierOffset(),
                                    c.getQualifierLength() - 9), 1, Integer::sum); // the metric: the qualifier before its writer suffix
                        }
                    }
                    for (int n : perMetric.values()) {
                        mostWriterCells = Math.max(mostWriterCells, n);
                    }
                }
            }
            System.out.printf("%d rounds, %.0f start-overs; most writer cells per metric in a row of adv-1: %d%n", 16, startsOver, mostWriterCells);
            assertTrue(mostWriterCells >= 1 && mostWriterCells <= 2, "the hot series' rows hold at most two writer cells per metric after "
                    + startsOver + " start-overs (one per start-over before): " + mostWriterCells);
        } finally {
            if (api != null) {
                api.stop();
            }
            aggregator.close();
        }
    }

    /** The cube's tables in a fresh namespace. */
    private static TableLayout freshTables(MiniHBase hbase, Cube cube, String name) throws java.io.IOException {
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace(name));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        return layout;
    }

    /** An aggregator on a free port that flushes only when told (and at 60 s), with {@code more} settings (name, value, ...). */
    private static Aggregator startAggregator(MiniHBase hbase, TableLayout layout, Clock clock, String id, String... more) {
        Map<String, String> settings = new java.util.HashMap<>(Map.of("ingest.port", "0", "aggregator.id", id, "flush.interval.ms", "60000",
                "dayclose.poll.ms", "60000", "heartbeat.interval.ms", "500"));
        for (int i = 0; i + 1 < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        return Aggregator.start(hbase.connection(), layout, parser(layout.cube(), clock), AggregatorConfig.of(settings), clock);
    }

    /** The event parser every aggregator of these tests uses (one device secret). */
    private static EventParser parser(Cube cube, Clock clock) {
        return new EventParser(cube, clock, Duration.ofDays(7),
                new DeviceHasher("live-series-device-secret-0123".getBytes(StandardCharsets.UTF_8)));
    }

    /** Posts {@code n} impressions of adv-1/c-1, one second apart from {@code start}, all accepted. */
    private static void postImpressions(int port, String prefix, int n, Instant start) {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < n; i++) {
            body.append("{\"type\":\"impression\",\"id\":\"").append(prefix).append(i).append("\",\"ts\":\"")
                    .append(start.plusSeconds(i)).append("\",\"advertiser\":\"adv-1\",\"campaign\":\"c-1\",\"creative\":\"cr-1\"")
                    .append(",\"publisher\":\"pub-1\",\"zone\":\"z-1\",\"country\":\"US\",\"deviceType\":\"mobile\",\"costMicros\":1000}\n");
        }
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v1/events"))
                    .header("Content-Type", "application/x-ndjson")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(n, JSON.readTree(r.body()).get("accepted").asLong(), r.body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Impressions per UTC day of an hourly report (days without any left out). */
    private static Map<String, Long> perDay(JsonNode report) {
        Map<String, Long> out = new TreeMap<>();
        for (JsonNode row : report.get("rows")) {
            long v = row.get("metrics").get("impressions").asLong();
            if (v != 0) {
                out.merge(row.get("time").asText().substring(0, 10), v, Long::sum);
            }
        }
        return out;
    }

    private static JsonNode get(int port, String path, String key) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Authorization", "Bearer " + key).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }
}
