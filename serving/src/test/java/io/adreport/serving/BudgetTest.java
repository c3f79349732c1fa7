package io.adreport.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import io.adreport.campaigns.CampaignRoutes;
import java.util.stream.Stream;

/**
 * Budgets end to end: impressions through the real aggregator (its spend flusher writes the
 * spend shard rows), the budget through {@code GET .../budget} of the real report API, the
 * nightly job through the real {@link Reconciler}, serving through the real routes with the
 * pacing service ticked by the test. Expected spend comes from {@link #oracle}: a sum over the
 * events this test sent (impressions only, each id once, cut in the advertiser's zone), sharing
 * no code with the spend path.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BudgetTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final byte[] SECRET = "0123456789abcdef-budgets".getBytes(StandardCharsets.UTF_8);
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");
    private static final ZoneId TOKYO = ZoneId.of("Asia/Tokyo");

    private final MutableClock clock = new MutableClock(T0);
    private MiniHBase hbase;
    private TableLayout layout;
    private EventParser parser;
    private Javalin api;
    private ServingRoutes serving;
    private String base;
    private String analyst;
    private String adserver;
    private String adv1;
    private String adv2;
    private String pub;

    /** An event this test sent: what the oracle needs. */
    record Sent(String type, String id, Instant ts, String advertiser, String campaign, long cost, String device) {
        Sent(String type, String id, Instant ts, String advertiser, String campaign, long cost) {
            this(type, id, ts, advertiser, campaign, cost, "dev-" + id);
        }
    }

    @BeforeAll
    void start(MiniHBase hbase) throws Exception {
        this.hbase = hbase;
        // The default cube with 4 salt buckets, from text: the reconcile job's tasks read the cube from its source.
        String text;
        try (var in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("altBuckets: 16", "altBuckets: 4");
        }
        Cube cube = CubeLoader.parse("ads-4.yaml", text);
        String ns = hbase.freshNamespace("budget");
        layout = new TableLayout(cube, ns);
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        DeviceHasher hasher = new DeviceHasher(SECRET);
        parser = new EventParser(cube, clock, Duration.ofDays(7), hasher);
        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, clock);
        // pacing ticks at start and then when the test says so (the interval is long)
        serving = ServingRoutes.create(hbase.connection(), layout, hasher, ProfileConfig.defaults(),
                ServeConfig.of(Map.of("serve.registry.refresh.ms", "60000", "serve.pacing.interval.ms", "60000",
                        "serve.deadline.ms", "5000")), clock, metrics);
        api = ReportApi.create(deps, Stream.concat(CampaignRoutes.create(deps.connection(), deps.layout(), deps.days(), deps.clock(),
                serving.rates()).stream(), serving.routes().stream()).toList()).start("127.0.0.1", 0);
        base = "http://127.0.0.1:" + api.port();
        analyst = deps.keys().create("analyst");
        adserver = deps.keys().create("adserver");
        adv1 = deps.keys().create("advertiser:adv1");
        adv2 = deps.keys().create("advertiser:adv2");
        pub = deps.keys().create("publisher:site1");
    }

    @AfterAll
    void stop() {
        api.stop();
        serving.close();
    }

    private Aggregator aggregator(String id) {
        return Aggregator.start(hbase.connection(), layout, parser,
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", id, "flush.interval.ms", "60000",
                        "spend.flush.ms", "1000", "dayclose.poll.ms", "100", "heartbeat.interval.ms", "200")),
                clock, TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults());
    }

    // ---- validation --------------------------------------------------------------------------

    @Test
    void budgetFieldsAreValidatedByName() throws Exception {
        assertEquals("budget.dailyMicros", param(put("/v1/campaigns/adv1/v", adv1, "{\"budget\": {\"dailyMicros\": -1}}")));
        assertEquals("budget.dailyMicros", param(put("/v1/campaigns/adv1/v", adv1, "{\"budget\": {\"dailyMicros\": 1.5}}")));
        assertEquals("budget.lifetimeMicros", param(put("/v1/campaigns/adv1/v", adv1, "{\"budget\": {\"lifetimeMicros\": \"x\"}}")));
        assertEquals("budget.timeZone", param(put("/v1/campaigns/adv1/v", adv1,
                "{\"budget\": {\"dailyMicros\": 5, \"timeZone\": \"Mars/Olympus\"}}")));
        assertEquals("budget.weekly", param(put("/v1/campaigns/adv1/v", adv1, "{\"budget\": {\"weekly\": 5}}")));
        assertEquals("budget", param(put("/v1/campaigns/adv1/v", adv1, "{\"budget\": {}}")));
        assertEquals("budget", param(put("/v1/campaigns/adv1/v", adv1, "{\"budget\": 5}")));
        HttpResponse<String> ok = put("/v1/campaigns/adv1/v", adv1, "{\"budget\": {\"lifetimeMicros\": 7000000}}");
        assertEquals(201, ok.statusCode(), ok.body());
        JsonNode b = JSON.readTree(get("/v1/campaigns/adv1/v", adv1).body()).path("budget");
        assertEquals(7_000_000L, b.path("lifetimeMicros").asLong());
        assertTrue(b.path("dailyMicros").isMissingNode(), "an absent amount stays absent: " + b);
        assertEquals("UTC", b.path("timeZone").asText(), "default zone UTC: " + b);
    }

    // ---- tenant isolation ----------------------------------------------------------------------

    @Test
    void anAdvertiserSeesOnlyItsOwnBudgets() throws Exception {
        assertEquals(201, put("/v1/campaigns/adv1/iso", adv1, "{\"budget\": {\"dailyMicros\": 1000000}}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv2/iso", adv2, "{\"budget\": {\"dailyMicros\": 2000000}}").statusCode());
        assertEquals(200, get("/v1/campaigns/adv1/iso/budget", adv1).statusCode());
        assertEquals(1_000_000L, JSON.readTree(get("/v1/campaigns/adv1/iso/budget", adv1).body()).path("dailyMicros").asLong());
        assertEquals(403, get("/v1/campaigns/adv1/iso/budget", adv2).statusCode(), "another advertiser's budget: 403, never data");
        assertEquals(403, get("/v1/campaigns/adv2/iso/budget", adv1).statusCode());
        assertEquals(403, get("/v1/campaigns/adv1/iso/budget", pub).statusCode(), "publishers read no budgets");
        assertEquals(403, get("/v1/campaigns/adv1/iso/budget", adserver).statusCode(), "ad servers read no budgets");
        assertEquals(401, get("/v1/campaigns/adv1/iso/budget", "nope").statusCode());
        assertEquals(404, get("/v1/campaigns/adv1/missing/budget", adv1).statusCode());
        assertEquals(2_000_000L, JSON.readTree(get("/v1/campaigns/adv2/iso/budget", analyst).body()).path("dailyMicros").asLong());
    }

    // ---- live spend, then exact after reconcile ----------------------------------------------

    @Test
    void budgetsAreLiveWithinAFlushAndExactAfterReconcile() throws Exception {
        clock.set(T0);
        assertEquals(201, put("/v1/campaigns/adv1/b1", adv1,
                "{\"budget\": {\"dailyMicros\": 90000000, \"lifetimeMicros\": 500000000, \"timeZone\": \"Asia/Tokyo\"}}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv2/b1", adv2, "{}").statusCode());
        LocalDate d = LocalDate.of(2026, 11, 19);
        Instant dStart = d.atStartOfDay(ZoneOffset.UTC).toInstant();
        Random rnd = new Random(15);
        List<Sent> sent = new ArrayList<>();
        // UTC day D before the Tokyo day (00:00-15:00), inside it (15:00-24:00), and today UTC before T0
        for (int i = 0; i < 120; i++) {
            Instant ts = i < 40 ? dStart.plusSeconds(rnd.nextInt(15 * 3600))
                    : i < 80 ? dStart.plusSeconds(15 * 3600 + rnd.nextInt(9 * 3600))
                    : T0.minusSeconds(1 + rnd.nextInt(9 * 3600));
            sent.add(new Sent("impression", "b1-" + i, ts, "adv1", "b1", 1 + rnd.nextInt(400_000)));
        }
        sent.add(new Sent("impression", "b1-other", T0.minusSeconds(60), "adv2", "b1", 123_456)); // another tenant
        Aggregator agg = aggregator("budget-a");
        try {
            ingest(agg, sent);
            ingest(agg, sent.subList(0, 10)); // replayed beacons: duplicates, counted once
            agg.flushNow();
            JsonNode live = budget("adv1", "b1", adv1);
            long[] expected = oracle(sent, "adv1", "b1", TOKYO, T0);
            assertEquals(expected[0], live.path("spentTodayMicros").asLong(), live.toString());
            assertEquals(expected[1], live.path("spentLifetimeMicros").asLong(), live.toString());
            assertEquals(Math.min(90_000_000L - expected[0], 500_000_000L - expected[1]), live.path("remainingMicros").asLong());
            assertTrue(live.path("unflushedBoundMicros").asLong() > 0, "a shard that just spent publishes a bound: " + live);
            assertEquals("2026-11-20", live.path("day").asText(), "the Tokyo day");
            assertEquals(expected[0], live.path("burn").get(live.path("burn").size() - 1).path("spentMicros").asLong(),
                    "the burn curve ends at today's spend");

            // A crash between the raw write and the spend flush (raw rows, no spend), and one spend Increment applied twice.
            RawEventCodec codec = new RawEventCodec(new RowKeyCodec(layout.cube()));
            try (Table raw = hbase.connection().getTable(layout.rawTable())) {
                for (int i = 0; i < 3; i++) {
                    Sent lost = new Sent("impression", "b1-lost-" + i, dStart.plusSeconds(16 * 3600 + i), "adv1", "b1", 50_000 + i);
                    sent.add(lost);
                    raw.put(codec.toPut(parser.parse(JSON.readTree(json(lost))), T0));
                }
            }
            try (Table spend = hbase.connection().getTable(layout.spendTable())) {
                spend.increment(new Increment(io.adreport.schema.spend.SpendRows.row("adv1", "b1", "budget-a"))
                        .addColumn(io.adreport.schema.spend.SpendRows.FAMILY,
                                io.adreport.schema.spend.SpendRows.quarterQualifier(dStart.plusSeconds(17 * 3600).toEpochMilli()), 777)
                        .addColumn(io.adreport.schema.spend.SpendRows.FAMILY, io.adreport.schema.spend.SpendRows.dayQualifier(d), 777)
                        .addColumn(io.adreport.schema.spend.SpendRows.FAMILY, io.adreport.schema.spend.SpendRows.LIFETIME, 777));
            }
            expected = oracle(sent, "adv1", "b1", TOKYO, T0);
            JsonNode drifted = budget("adv1", "b1", adv1);
            assertNotEquals(expected[0], drifted.path("spentTodayMicros").asLong(), "the live spend has drifted (else the test proves nothing)");
            assertNotEquals(expected[1], drifted.path("spentLifetimeMicros").asLong());
        } finally {
            agg.close();
        }
        new Reconciler(hbase.configuration(), hbase.connection(), layout, ReconcileConfig.of(Map.of("reconcile.grace.ms", "0")), clock)
                .reconcile(d, false, null);
        long[] expected = oracle(sent, "adv1", "b1", TOKYO, T0);
        JsonNode exact = budget("adv1", "b1", analyst);
        assertEquals(expected[0], exact.path("spentTodayMicros").asLong(), "today (Tokyo) exact after reconcile: " + exact);
        assertEquals(expected[1], exact.path("spentLifetimeMicros").asLong(), "lifetime exact after reconcile: " + exact);
        JsonNode other = budget("adv2", "b1", analyst);
        assertEquals(0, other.path("spentLifetimeMicros").asLong() - 123_456, "another advertiser's campaign of the same name is apart");
    }

    // ---- exhausted, pacing and selection -----------------------------------------------------

    @Test
    void anExhaustedCampaignIsNeverChosenNorAllowedAndPausedEndedAndCappedAreSkipped() throws Exception {
        Instant t = T0.plus(Duration.ofHours(2));
        clock.set(t);
        LocalDate today = LocalDate.ofInstant(t, ZoneOffset.UTC);
        assertEquals(201, put("/v1/campaigns/adv1/x-spent", adv1, "{\"budget\": {\"dailyMicros\": 5000}}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/x-paused", adv1, "{\"status\": \"paused\"}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/x-ended", adv1, "{\"end\": \"" + today.minusDays(1) + "\"}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/x-capped", adv1, "{\"frequencyCaps\": [{\"max\": 1, \"window\": \"1h\"}]}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/x-left", adv1, "{\"budget\": {\"dailyMicros\": 1000000000}}").statusCode());
        String zone = "{\"ads\": [" + zoneAd("x-spent", 9000) + "," + zoneAd("x-paused", 8000) + "," + zoneAd("x-ended", 7000) + ","
                + zoneAd("x-capped", 6000) + "," + zoneAd("x-left", 1000) + "]}";
        assertEquals(201, put("/v1/zones/site1/bz", pub, zone).statusCode());
        serving.registry().refresh();
        serving.pacing().tick();
        JsonNode before = JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"bz\", \"device\": \"bdev\", \"count\": 5}"));
        assertEquals(List.of("x-spent", "x-capped", "x-left"), campaigns(before), "paused and ended never; the rest by eCPM");

        Aggregator agg = aggregator("budget-b");
        try {
            List<Sent> spend = List.of(new Sent("impression", "x-1", t.minusSeconds(30), "adv1", "x-spent", 3000),
                    new Sent("impression", "x-2", t.minusSeconds(20), "adv1", "x-spent", 2500),
                    new Sent("impression", "x-cap", t.minusSeconds(10), "adv1", "x-capped", 10, "bdev"));
            ingest(agg, spend);
            agg.flushNow();
        } finally {
            agg.close();
        }
        JsonNode status = budget("adv1", "x-spent", adv1);
        assertEquals(5500, status.path("spentTodayMicros").asLong(), status.toString());
        assertTrue(status.path("exhausted").asBoolean(), status.toString());
        assertEquals(0, status.path("remainingMicros").asLong());
        serving.pacing().tick();
        for (int i = 0; i < 50; i++) {
            JsonNode after = JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"bz\", \"device\": \"bdev\", \"count\": 5}"));
            assertEquals(List.of("x-left"), campaigns(after), "exhausted, paused, ended and capped (1 per 1h, seen) are skipped");
        }
        HttpResponse<String> check = post("/v1/serve/check", "{\"device\": \"bdev\", \"campaigns\": [\"adv1/x-spent\", \"adv1/x-left\"]}");
        JsonNode answers = JSON.readTree(check.body()).path("campaigns");
        assertFalse(answers.get(0).path("allowed").asBoolean(), check.body());
        assertEquals("exhausted", answers.get(0).path("reason").asText(), check.body());
        assertTrue(answers.get(1).path("allowed").asBoolean(), check.body());
        assertEquals(1.0, budget("adv1", "x-left", adv1).path("pacing").path("rate").asDouble(), 1e-9,
                "no demand seen yet: the pacing rate is 1");

        // Raising the budget serves the campaign again at the next tick.
        assertEquals(200, put("/v1/campaigns/adv1/x-spent", adv1, "{\"budget\": {\"dailyMicros\": 100000000}}").statusCode());
        serving.registry().refresh();
        serving.pacing().tick();
        assertEquals("x-spent", campaigns(JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"bz\", \"device\": \"bdev\"}"))).get(0));
    }

    @Test
    void aCampaignAheadOfItsCurveIsOfferedOnlyOnItsPassThroughShareOfRequests() throws Exception {
        // 13:00 UTC is midnight in Noumea (+11:00, no DST): the advertiser's day has just begun, so
        // 2,000,000 micros in its first seconds are far ahead of the even curve of a 8,640,000,000 budget.
        Instant t = T0.plus(Duration.ofHours(3));
        clock.set(t);
        assertEquals(201, put("/v1/campaigns/adv1/p-fast", adv1,
                "{\"budget\": {\"dailyMicros\": 8640000000, \"timeZone\": \"Pacific/Noumea\"}}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/p-other", adv1, "{}").statusCode());
        assertEquals(201, put("/v1/zones/site1/pz", pub, "{\"ads\": [" + zoneAd("p-fast", 9000) + "," + zoneAd("p-other", 1000) + "]}")
                .statusCode());
        serving.registry().refresh();
        serving.pacing().tick(); // observes no spend at 13:00:00
        Aggregator agg = aggregator("budget-c");
        try {
            clock.set(t.plusSeconds(1));
            List<Sent> burst = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                burst.add(new Sent("impression", "p-" + i, t.plusMillis(500), "adv1", "p-fast", 100_000));
            }
            ingest(agg, burst);
            agg.flushNow();
        } finally {
            agg.close();
        }
        clock.set(t.plusSeconds(2));
        serving.pacing().tick(); // 2,000,000 micros in 2 s at rate 1: demand known, spend far ahead of the curve
        double rate = budget("adv1", "p-fast", adv1).path("pacing").path("rate").asDouble();
        assertTrue(rate > 0 && rate < 0.2, "ahead of its curve the campaign is throttled: rate " + rate);
        int n = 1000;
        int fast = 0;
        for (int i = 0; i < n; i++) {
            List<String> chosen = campaigns(JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"pz\", \"device\": \"pd-" + i + "\"}")));
            assertEquals(1, chosen.size(), "the slot is always filled: by p-fast or, when it is not drawn, by p-other");
            fast += chosen.get(0).equals("p-fast") ? 1 : 0;
        }
        double sigma = Math.sqrt(n * rate * (1 - rate));
        assertTrue(Math.abs(fast - n * rate) <= 5 * sigma, "p-fast won " + fast + " of " + n + " at rate " + rate + " (5 sigma " + 5 * sigma + ")");
    }

    // ---- oracle and helpers ------------------------------------------------------------------

    /** {today's spend in {@code zone} up to {@code now}, lifetime spend} of one campaign, from the sent events alone. */
    static long[] oracle(List<Sent> sent, String advertiser, String campaign, ZoneId zone, Instant now) {
        LocalDate today = LocalDate.ofInstant(now, zone);
        java.util.Set<String> seen = new java.util.HashSet<>();
        long day = 0;
        long life = 0;
        for (Sent s : sent) {
            if (!s.type().equals("impression") || !s.advertiser().equals(advertiser) || !s.campaign().equals(campaign)
                    || !seen.add(s.id())) {
                continue;
            }
            life += s.cost();
            if (LocalDate.ofInstant(s.ts(), zone).equals(today)) {
                day += s.cost();
            }
        }
        return new long[] {day, life};
    }

    private static String json(Sent s) {
        return "{\"type\":\"" + s.type() + "\",\"id\":\"" + s.id() + "\",\"ts\":\"" + s.ts() + "\",\"device\":\"" + s.device()
                + "\",\"advertiser\":\"" + s.advertiser() + "\",\"campaign\":\"" + s.campaign() + "\",\"creative\":\"cr\","
                + "\"publisher\":\"site1\",\"zone\":\"z\",\"country\":\"JP\",\"deviceType\":\"phone\",\"costMicros\":" + s.cost() + "}";
    }

    private void ingest(Aggregator agg, List<Sent> events) throws Exception {
        StringBuilder body = new StringBuilder();
        for (Sent s : events) {
            body.append(json(s)).append('\n');
        }
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(0, JSON.readTree(r.body()).path("rejected").size(), r.body());
    }

    private JsonNode budget(String advertiser, String campaign, String key) throws Exception {
        HttpResponse<String> r = get("/v1/campaigns/" + advertiser + "/" + campaign + "/budget", key);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    private static List<String> campaigns(JsonNode answer) {
        List<String> out = new ArrayList<>();
        answer.path("ads").forEach(a -> out.add(a.path("campaign").asText()));
        return out;
    }

    private static String zoneAd(String campaign, long ecpm) {
        return "{\"advertiser\": \"adv1\", \"campaign\": \"" + campaign + "\", \"creative\": \"" + campaign + "-cr\", \"ecpmMicros\": "
                + ecpm + "}";
    }

    private String serve(String body) throws Exception {
        HttpResponse<String> r = post("/v1/serve/ad", body);
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + adserver)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String param(HttpResponse<String> r) throws Exception {
        assertEquals(400, r.statusCode(), r.body());
        return JSON.readTree(r.body()).path("parameter").asText();
    }

    private HttpResponse<String> put(String path, String key, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key)
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

}
