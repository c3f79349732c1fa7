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
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.io.InputStream;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Live reads under fire: two aggregators (put-if-absent, as several instances run) ingest
 * without pause and flush every 50 ms, while reports are read over HTTP as fast as they answer.
 * Every report must lie between what was acknowledged before it was asked and what had been
 * sent by the time it answered: a report that counted a flushed delta twice (stored cell and
 * live total) would pass the upper bound, one that missed what was acknowledged (waiting for a
 * flush) would fall below the lower. At the end, flushed and quiet, every report equals the
 * events accepted, counted by this test from the aggregators' answers alone.
 */
@ExtendWith(HBaseExtension.class)
class LiveReportsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final List<String> ADVERTISERS = List.of("adv-1", "adv-2", "adv-3");
    /** How long a wait for an event may take before the test fails: far above what a loaded machine needs. */
    private static final Duration CEILING = Duration.ofMinutes(3);
    /** Reports checked while ingest and flushes run. */
    private static final int MIN_REPORTS = 30;
    /** Flushes of each aggregator while the reports are read. */
    private static final int MIN_FLUSHES = 20;

    @Test
    void every_report_lies_between_the_acknowledged_and_the_sent_while_two_aggregators_flush_every_50_ms(MiniHBase hbase)
            throws Exception {
        Cube cube;
        try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            cube = CubeLoader.parse("ads.yaml with 4 buckets",
                    new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("Buckets: 16", "Buckets: 4"));
        }
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("live"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        Clock clock = Clock.systemUTC();
        EventParser parser = new EventParser(cube, clock, Duration.ofDays(7),
                new DeviceHasher("live-reads-device-secret-0123".getBytes(StandardCharsets.UTF_8)));
        List<Aggregator> aggregators = new ArrayList<>();
        Javalin api = null;
        try {
            for (String id : List.of("live-a", "live-b")) {
                aggregators.add(Aggregator.start(hbase.connection(), layout, parser, AggregatorConfig.of(Map.of(
                        "ingest.port", "0", "aggregator.id", id, "aggregator.instances", "2", "flush.interval.ms", "50",
                        "dayclose.poll.ms", "200", "heartbeat.interval.ms", "500")), clock));
            }
            ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.of(Map.of()),
                    new Metrics(), clock);
            String analyst = deps.keys().create("analyst");
            String tenant = deps.keys().create("advertiser:adv-2");
            api = ReportApi.create(deps).start(0);
            int apiPort = api.port();
            LocalDate today = LocalDate.now(ZoneOffset.UTC);
            Instant dayStart = today.atStartOfDay(ZoneOffset.UTC).toInstant();

            // Accepted and sent, in total and for adv-2, updated by the senders; read by the reports.
            AtomicLong sent = new AtomicLong();
            AtomicLong acked = new AtomicLong();
            AtomicLong sentAdv2 = new AtomicLong();
            AtomicLong ackedAdv2 = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Map<String, Boolean> ids = new ConcurrentHashMap<>();
            List<Thread> senders = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                Aggregator target = aggregators.get(s);
                int sender = s;
                Thread t = new Thread(() -> {
                    java.util.Random rnd = new java.util.Random(7 + sender);
                    int n = 0;
                    try {
                        while (!stop.get()) {
                            StringBuilder body = new StringBuilder();
                            int batch = 20 + rnd.nextInt(200);
                            int adv2 = 0;
                            for (int i = 0; i < batch; i++) {
                                String adv = ADVERTISERS.get(rnd.nextInt(ADVERTISERS.size()));
                                adv2 += adv.equals("adv-2") ? 1 : 0;
                                Instant ts = dayStart.plusSeconds(rnd.nextInt((int) Math.max(1,
                                        Duration.between(dayStart, clock.instant()).getSeconds() - 5)));
                                String id = "imp-" + sender + "-" + (n++);
                                ids.put(id, true);
                                body.append("{\"type\":\"impression\",\"id\":\"").append(id).append("\",\"ts\":\"").append(ts)
                                        .append("\",\"advertiser\":\"").append(adv).append("\",\"campaign\":\"c-").append(rnd.nextInt(40))
                                        .append("\",\"creative\":\"cr-1\",\"publisher\":\"pub-").append(rnd.nextInt(5))
                                        .append("\",\"zone\":\"z-1\",\"country\":\"US\",\"deviceType\":\"mobile\",\"device\":\"d-").append(rnd.nextInt(100))
                                        .append("\",\"costMicros\":1000}\n");
                            }
                            sent.addAndGet(batch);
                            sentAdv2.addAndGet(adv2);
                            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
                                            URI.create("http://localhost:" + target.port() + "/v1/events"))
                                    .header("Content-Type", "application/x-ndjson")
                                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            assertEquals(200, r.statusCode(), r.body());
                            JsonNode answer = JSON.readTree(r.body());
                            assertEquals(batch, answer.get("accepted").asLong(), r.body());
                            ackedAdv2.addAndGet(adv2);
                            acked.addAndGet(batch);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "live-reads-sender-" + s);
                t.start();
                senders.add(t);
            }

            String network = "/v1/reports/network?from=" + today + "&to=" + today.plusDays(1) + "&granularity=all&metrics=impressions";
            String ofAdv2 = "/v1/reports/campaign?from=" + today + "&to=" + today.plusDays(1)
                    + "&granularity=hour&metrics=impressions&groupBy=campaign";
            // Reads go on until both aggregators have flushed many times while reports were read
            // (the race this test is about) and enough reports were checked: counted events, with a
            // generous ceiling, not a time window.
            long[] flushesBefore = aggregators.stream().mapToLong(a -> a.stats().flushSeconds.count()).toArray();
            long ceiling = System.nanoTime() + CEILING.toNanos();
            int reports = 0;
            while (failure.get() == null && (reports < MIN_REPORTS || fewestFlushesSince(aggregators, flushesBefore) < MIN_FLUSHES)) {
                assertTrue(System.nanoTime() < ceiling, "within " + CEILING + ": " + reports + " reports read (" + MIN_REPORTS
                        + " wanted) while each aggregator flushed at least " + fewestFlushesSince(aggregators, flushesBefore)
                        + " times (" + MIN_FLUSHES + " wanted)");
                long low = acked.get();
                long lowAdv2 = ackedAdv2.get();
                long total = sum(get(apiPort, network, analyst));
                long adv2 = sum(get(apiPort, ofAdv2, tenant));
                long high = sent.get();
                long highAdv2 = sentAdv2.get();
                assertTrue(low <= total && total <= high, "network report " + total + " outside [" + low + ", " + high + "]");
                assertTrue(lowAdv2 <= adv2 && adv2 <= highAdv2, "adv-2's report " + adv2 + " outside [" + lowAdv2 + ", " + highAdv2 + "]");
                reports++;
            }
            stop.set(true);
            for (Thread t : senders) {
                t.join(CEILING.toMillis());
            }
            if (failure.get() != null) {
                throw new AssertionError("a sender failed", failure.get());
            }
            assertTrue(senders.stream().noneMatch(Thread::isAlive), "the senders stopped within " + CEILING);
            assertEquals(ids.size(), acked.get(), "every event sent was accepted once");

            // Quiet and flushed: the stored cells alone hold everything, and nothing is counted twice.
            for (Aggregator a : aggregators) {
                a.flushNow();
            }
            assertEquals(acked.get(), sum(get(apiPort, network, analyst)), "the network report after the last flush");
            assertEquals(ackedAdv2.get(), sum(get(apiPort, ofAdv2, tenant)), "adv-2's report after the last flush");
            System.err.printf("live reads: %d reads of 2 reports while %d events were ingested%n", reports, acked.get());
        } finally {
            if (api != null) {
                api.stop();
            }
            aggregators.forEach(Aggregator::close);
        }
    }

    /**
     * Two ways a live total could be added on top of what is already stored, both left out:
     * <ol>
     *   <li>An aggregator that missed a day's close (its day-close poll is slower than the test, as
     *       one paused past its heartbeat's expiry would be) still answers that day's live rows;
     *       once meta says the day is closing, reports leave them out (the nightly job may already
     *       have folded the day's stored cells into the corrected ones), while today's still count.</li>
     *   <li>The report API reuses the writer id an aggregator answered before. Restarted at the same
     *       address, the aggregator writes under a new id: a report still holding the old one must
     *       not add the new writer's live total on top of its stored cells (it reads that aggregator
     *       as stored), and the report after it sees everything again.</li>
     * </ol>
     */
    @Test
    void live_rows_of_a_closed_day_and_a_restarted_writers_stored_cells_are_never_added_twice(MiniHBase hbase)
            throws Exception {
        Stack stack = Stack.create(hbase, "guards");
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Map<String, String> settings = Map.of("ingest.port", String.valueOf(port), "aggregator.id", "guarded",
                "flush.interval.ms", "60000", "dayclose.poll.ms", "60000", "heartbeat.interval.ms", "500");
        Aggregator aggregator = Aggregator.start(hbase.connection(), stack.layout(), stack.parser(), AggregatorConfig.of(settings),
                stack.clock());
        Javalin api = null;
        try {
            Metrics apiMetrics = new Metrics();
            ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), stack.cube(), stack.layout().namespace(),
                    ReportConfig.of(Map.of()), apiMetrics, stack.clock());
            String analyst = deps.keys().create("analyst");
            api = ReportApi.create(deps).start(0);
            LocalDate today = LocalDate.now(ZoneOffset.UTC);
            LocalDate yesterday = today.minusDays(1);
            Instant startOfToday = today.atStartOfDay(ZoneOffset.UTC).toInstant();

            // 1. A closed day's live rows.
            postImpressions(port, "y-", 5, yesterday.atTime(12, 0).toInstant(ZoneOffset.UTC));
            postImpressions(port, "t-", 3, startOfToday);
            String byDay = "/v1/reports/network?from=" + yesterday + "&to=" + today.plusDays(1)
                    + "&granularity=day&metrics=impressions&tz=UTC";
            assertEquals(Map.of(yesterday.toString(), 5L, today.toString(), 3L), perDay(get(api.port(), byDay, analyst)),
                    "live counts, nothing flushed yet");
            deps.days().markClosing(yesterday); // the aggregator will not poll meta again within this test
            Map<String, Long> after = perDay(get(api.port(), byDay, analyst));
            assertEquals(0L, after.getOrDefault(yesterday.toString(), 0L), "yesterday is closed: its live rows are left out");
            assertEquals(3L, after.get(today.toString()), "today's live rows still count");

            // 2. A restarted aggregator's new writer, while the report API still holds the old id.
            String network = "/v1/reports/network?from=" + today + "&to=" + today.plusDays(1) + "&granularity=all&metrics=impressions";
            aggregator.close(); // flushes: today's 3 in the first writer's cells
            aggregator = Aggregator.start(hbase.connection(), stack.layout(), stack.parser(), AggregatorConfig.of(settings),
                    stack.clock());
            postImpressions(port, "second-", 4, startOfToday);
            aggregator.flushNow(); // 4 in the new writer's cells
            postImpressions(port, "third-", 2, startOfToday); // 2 live only
            long misses = apiMetrics.counter("adreport_report_live_misses_total", "").get();
            long first = sum(get(api.port(), network, analyst));
            assertTrue(first == 7 || first == 9, "the first report after the restart reads the new writer as stored (7) or"
                    + " live (9), never its stored cells twice: " + first);
            assertEquals(9, sum(get(api.port(), network, analyst)), "the next report knows the new writer id");
            System.err.printf("restart: first report %d, live misses %d%n", first,
                    apiMetrics.counter("adreport_report_live_misses_total", "").get() - misses);
            // Both sides time the exchange: the report's steps and the aggregator's answers.
            assertTrue(apiMetrics.histogram("adreport_report_live_seconds", "", Metrics.LATENCY_BUCKETS).count() >= 3,
                    "each report's live step is timed");
            long answers = aggregator.stats().liveAnswerSeconds.count();
            assertTrue(answers >= 2, "the restarted aggregator timed its live answers: " + answers);
        } finally {
            if (api != null) {
                api.stop();
            }
            aggregator.close();
        }
    }

    /** The fewest flushes any of {@code aggregators} made since {@code before} (their flush counts then). */
    private static long fewestFlushesSince(List<Aggregator> aggregators, long[] before) {
        long fewest = Long.MAX_VALUE;
        for (int i = 0; i < aggregators.size(); i++) {
            fewest = Math.min(fewest, aggregators.get(i).stats().flushSeconds.count() - before[i]);
        }
        return fewest;
    }

    /** Posts {@code n} impressions of one series, one second apart from {@code start}, all accepted. */
    private static void postImpressions(int port, String prefix, int n, Instant start) throws Exception {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < n; i++) {
            body.append("{\"type\":\"impression\",\"id\":\"").append(prefix).append(i).append("\",\"ts\":\"")
                    .append(start.plusSeconds(i)).append("\",\"advertiser\":\"adv-1\",\"campaign\":\"c-1\",\"creative\":\"cr-1\"")
                    .append(",\"publisher\":\"pub-1\",\"zone\":\"z-1\",\"country\":\"US\",\"deviceType\":\"mobile\",\"costMicros\":1000}\n");
        }
        HttpResponse<String> posted = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v1/events"))
                .header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, posted.statusCode(), posted.body());
        assertEquals(n, JSON.readTree(posted.body()).get("accepted").asLong(), posted.body());
    }

    /** The built-in cube's tables in a fresh namespace, and the parser an aggregator takes. */
    private record Stack(Cube cube, TableLayout layout, Clock clock, EventParser parser) {
        static Stack create(MiniHBase hbase, String namespace) throws Exception {
            Cube cube;
            try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
                cube = CubeLoader.parse("ads.yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            TableLayout layout = new TableLayout(cube, hbase.freshNamespace(namespace));
            new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
            Clock clock = Clock.systemUTC();
            return new Stack(cube, layout, clock, new EventParser(cube, clock, Duration.ofDays(7),
                    new DeviceHasher("live-reads-device-secret-0123".getBytes(StandardCharsets.UTF_8))));
        }
    }

    /** Impressions per row, keyed by the row's date (a day-granularity report in UTC). */
    private static Map<String, Long> perDay(JsonNode report) {
        Map<String, Long> out = new java.util.TreeMap<>();
        for (JsonNode row : report.get("rows")) {
            long n = row.get("metrics").get("impressions").asLong();
            if (n != 0) {
                out.merge(row.get("time").asText().substring(0, 10), n, Long::sum);
            }
        }
        return out;
    }

    private static long sum(JsonNode report) {
        long total = 0;
        for (JsonNode row : report.get("rows")) {
            total += row.get("metrics").get("impressions").asLong();
        }
        return total;
    }

    private static JsonNode get(int port, String path, String key) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Authorization", "Bearer " + key).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }
}
