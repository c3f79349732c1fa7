package io.adreport.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Frequency caps end to end: impressions go through the real aggregator (which writes each
 * device view before the ack), checks through the real report API with the serving routes, the
 * registry through its HTTP routes. Expected answers come from {@link #oracle}, a direct count
 * of the view times this test sent, sharing no code with the check.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FrequencyCapTest {
    private static final ObjectMapper JSON = ServingStack.JSON;
    private static final HttpClient HTTP = ServingStack.HTTP;
    private static final byte[] SECRET = ServingStack.SECRET;
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

    private final MutableClock clock = new MutableClock(T0);
    private ServingStack stack;
    private MiniHBase hbase;
    private TableLayout layout;
    private Aggregator agg;
    private ServingRoutes serving;
    private String base;
    private String analyst;
    private String adserver;
    private String adv1;
    private String adv2;

    @BeforeAll
    void start(MiniHBase hbase) throws Exception {
        stack = new ServingStack(hbase, clock);
        this.hbase = hbase;
        layout = stack.layout;
        agg = stack.agg;
        serving = stack.serving;
        base = stack.base;
        analyst = stack.analyst;
        adserver = stack.adserver;
        adv1 = stack.adv1;
        adv2 = stack.adv2;
    }

    @AfterAll
    void stop() {
        stack.close();
    }

    // ---- registry ---------------------------------------------------------------------------

    @Test
    void registryValidatesNamesTheFieldAndIsolatesTenants() throws Exception {
        HttpResponse<String> bad = put("/v1/campaigns/adv1/cv", adv1, "{\"frequencyCaps\": [{\"max\": 0, \"window\": \"5m\"}]}");
        assertEquals(400, bad.statusCode(), bad.body());
        assertEquals("frequencyCaps.max", JSON.readTree(bad.body()).path("parameter").asText(), bad.body());
        bad = put("/v1/campaigns/adv1/cv", adv1, "{\"frequencyCaps\": [{\"max\": 1, \"window\": \"121d\"}]}");
        assertEquals(400, bad.statusCode());
        assertEquals("frequencyCaps.window", JSON.readTree(bad.body()).path("parameter").asText(), bad.body());
        bad = put("/v1/campaigns/adv1/cv", adv1, "{\"frequencyCap\": []}");
        assertEquals("frequencyCap", JSON.readTree(bad.body()).path("parameter").asText(), bad.body());
        bad = put("/v1/campaigns/adv1/cv", adv1, "{\"status\": \"running\"}");
        assertEquals("status", JSON.readTree(bad.body()).path("parameter").asText(), bad.body());
        bad = put("/v1/campaigns/adv1/cv", adv1, "{\"start\": \"2026-12-02\", \"end\": \"2026-12-01\"}");
        assertEquals("end", JSON.readTree(bad.body()).path("parameter").asText(), bad.body());

        assertEquals(201, put("/v1/campaigns/adv1/cv", adv1, "{\"status\": \"active\"}").statusCode());
        assertEquals(200, put("/v1/campaigns/adv1/cv", analyst, "{\"status\": \"paused\"}").statusCode());
        assertEquals(403, put("/v1/campaigns/adv1/cv", adv2, "{\"status\": \"active\"}").statusCode());
        assertEquals(403, get("/v1/campaigns/adv1/cv", adv2).statusCode());
        assertEquals(403, put("/v1/campaigns/adv1/cv", adserver, "{}").statusCode());
        JsonNode got = JSON.readTree(get("/v1/campaigns/adv1/cv", adv1).body());
        assertEquals("paused", got.path("status").asText());
        assertEquals(2, got.path("version").asInt());
        assertEquals(404, get("/v1/campaigns/adv1/nope", adv1).statusCode());
        assertEquals(201, put("/v1/campaigns/adv2/other", adv2, "{}").statusCode());
        for (JsonNode c : JSON.readTree(get("/v1/campaigns", adv1).body()).path("campaigns")) {
            assertEquals("adv1", c.path("advertiser").asText(), "an advertiser lists only its own campaigns");
        }
        assertTrue(JSON.readTree(get("/v1/campaigns", analyst).body()).path("campaigns").size() >= 2);
    }

    // ---- caps ---------------------------------------------------------------------------------

    @Test
    void capsAreExactAtEveryRollingWindowBoundary() throws Exception {
        assertEquals(201, put("/v1/campaigns/adv1/c1", adv1, "{\"frequencyCaps\": ["
                + "{\"max\": 1, \"window\": \"5m\"}, {\"max\": 2, \"window\": \"2h\"}, {\"max\": 3, \"window\": \"1d\"}]}").statusCode());
        serving.registry().refresh();
        long[] caps = {5 * 60_000L, 2 * 3_600_000L, 86_400_000L};
        int[] max = {1, 2, 3};
        String device = "device-exact-1";
        Instant start = T0.plus(Duration.ofDays(1));
        List<Long> views = new ArrayList<>();
        Instant[] at = {start, start.plus(Duration.ofMinutes(10)), start.plus(Duration.ofMinutes(30)).plusMillis(7)};
        int n = 0;
        for (Instant t : at) {
            clock.set(t);
            assertEquals(200, ingest(impression("exact-" + n++, t, device, "adv1", "c1")).statusCode());
            views.add(t.toEpochMilli());
            // a check right after the ack sees the view
            assertEquals(oracle(views, caps, max, t.toEpochMilli()), answer(device, "adv1/c1", t));
        }
        // a replayed impression is not a second view
        clock.set(at[2]);
        HttpResponse<String> replay = ingest(impression("exact-2", at[2], device, "adv1", "c1"));
        assertEquals(200, replay.statusCode());
        assertTrue(replay.body().contains("duplicate"), replay.body());
        // every boundary: a view leaves window w exactly at view + w
        List<Long> probes = new ArrayList<>();
        for (long v : views) {
            for (long w : caps) {
                for (long d = -1; d <= 1; d++) {
                    probes.add(v + w + d);
                }
            }
        }
        for (long p : probes) {
            Instant now = Instant.ofEpochMilli(p);
            clock.set(now);
            assertEquals(oracle(views, caps, max, p), answer(device, "adv1/c1", now), "at " + now);
        }
    }

    @Test
    void capsChangedMidRunApplyToTheViewsAlreadySeen() throws Exception {
        assertEquals(201, put("/v1/campaigns/adv1/c2", adv1, "{\"frequencyCaps\": [{\"max\": 3, \"window\": \"1h\"}]}").statusCode());
        serving.registry().refresh();
        Instant t = T0.plus(Duration.ofDays(2));
        clock.set(t);
        for (int i = 0; i < 2; i++) {
            assertEquals(200, ingest(impression("mid-" + i, t.plusSeconds(i), "device-mid", "adv1", "c2")).statusCode());
        }
        clock.set(t.plusSeconds(5));
        assertEquals("allowed", answer("device-mid", "adv1/c2", clock.instant()));
        assertEquals(200, put("/v1/campaigns/adv1/c2", adv1, "{\"frequencyCaps\": [{\"max\": 2, \"window\": \"1h\"}]}").statusCode());
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos(); // a ceiling on the wait, not a timing
        String a;
        do {
            Thread.sleep(50); // the registry copy refreshes by itself (serve.registry.refresh.ms=100)
            a = answer("device-mid", "adv1/c2", clock.instant());
        } while (!a.equals("capped 1h 2/2") && System.nanoTime() < deadline);
        assertEquals("capped 1h 2/2", a);
        assertEquals(200, put("/v1/campaigns/adv1/c2", adv1, "{\"status\": \"paused\", \"frequencyCaps\": [{\"max\": 2, \"window\": \"1h\"}]}").statusCode());
        serving.registry().refresh();
        assertEquals("paused", answer("device-mid", "adv1/c2", clock.instant()));
    }

    @Test
    void unidentifiedDevicesAreNeverWrittenAndFollowTheSetting() throws Exception {
        assertEquals(201, put("/v1/campaigns/adv1/c3", adv1, "{\"frequencyCaps\": [{\"max\": 5, \"window\": \"1d\"}]}").statusCode());
        serving.registry().refresh();
        Instant t = T0.plus(Duration.ofDays(3));
        clock.set(t);
        DeviceHasher hasher = new DeviceHasher(SECRET);
        String[] placeholders = {"00000000-0000-0000-0000-000000000000", "unknown", ""};
        int i = 0;
        for (String d : placeholders) {
            assertEquals(200, ingest(impression("ph-" + i++, t, d, "adv1", "c3")).statusCode());
        }
        try (Table profiles = hbase.connection().getTable(layout.profilesTable()); ResultScanner rs = profiles.getScanner(new Scan())) {
            for (Result r : rs) {
                String hash = HexFormat.of().formatHex(r.getRow(), 1, 33);
                for (String d : placeholders) {
                    assertFalse(hash.equals(hasher.hash(d)), "a profile row was written for placeholder '" + d + "'");
                }
            }
        }
        assertEquals("unidentified", answer("unknown", "adv1/c3", t));
        assertEquals("unidentified", answer("00000000-0000-0000-0000-000000000000", "adv1/c3", t));
        assertEquals("allowed", answer("unknown", "adv1/unregistered", t), "an uncapped campaign is allowed");
    }

    @Test
    void segmentsAreReturnedAndOnlyAdserverKeysMayCheck() throws Exception {
        DeviceHasher hasher = new DeviceHasher(SECRET);
        byte[] row = new io.adreport.schema.profile.ProfileKey(layout.cube().saltBuckets()).row(hasher.hash("device-seg"));
        try (Table profiles = hbase.connection().getTable(layout.profilesTable())) {
            profiles.put(new Put(row).addColumn(io.adreport.schema.table.TableLayout.SEGMENT_FAMILY,
                    io.adreport.schema.profile.Segments.qualifier("sports"), io.adreport.schema.profile.Segments.value(0.75)));
        }
        JsonNode r = JSON.readTree(check(adserver, "{\"device\": \"device-seg\", \"campaigns\": [\"adv1/x\"]}").body());
        assertEquals(0.75, r.path("segments").path("sports").asDouble());
        assertEquals("known", r.path("device").asText());
        assertEquals(403, check(adv1, "{\"device\": \"d\", \"campaigns\": [\"adv1/x\"]}").statusCode());
        HttpResponse<String> bad = check(adserver, "{\"device\": \"d\", \"campaigns\": [\"nocampaign\"]}");
        assertEquals(400, bad.statusCode());
        assertEquals("campaigns", JSON.readTree(bad.body()).path("parameter").asText());
        bad = check(adserver, "{\"campaigns\": [\"a/b\"]}");
        assertEquals("device", JSON.readTree(bad.body()).path("parameter").asText());
    }

    @Test
    void bulkLoadedSegmentsAreVisibleInTheCheck(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        DeviceHasher hasher = new DeviceHasher(SECRET);
        // The HFiles wait on the cluster's file system, under HBase's staging directory: a region
        // server on another host could not read this host's temporary directory.
        org.apache.hadoop.conf.Configuration conf = hbase.configuration();
        java.nio.file.Path clusterStaging = dir.resolve("cluster-staging");
        conf.set("hbase.fs.tmp.dir", clusterStaging.toString());
        try (org.apache.hadoop.hbase.client.Connection connection = org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(conf)) {
            loadSegments(dir, hasher, connection, clusterStaging);
        }
    }

    private void loadSegments(java.nio.file.Path dir, DeviceHasher hasher, org.apache.hadoop.hbase.client.Connection connection,
                              java.nio.file.Path clusterStaging) throws Exception {
        var loader = new io.adreport.serving.segments.SegmentLoader(connection, layout, hasher,
                new io.adreport.schema.profile.UnidentifiedDevices(hasher, List.of("unknown")), clock, 3);
        java.nio.file.Path bad = dir.resolve("bad.csv");
        java.nio.file.Files.writeString(bad, "device,segment,score\nbulk-1,autos,0.5\nbulk-2,,0.1\n");
        var refused = org.junit.jupiter.api.Assertions.assertThrows(io.adreport.serving.segments.SegmentLoader.BadLine.class,
                () -> loader.load(bad));
        assertTrue(refused.getMessage().contains("line 3: segment"), refused.getMessage());
        assertEquals(0, JSON.readTree(check(adserver, "{\"device\": \"bulk-1\", \"campaigns\": [\"a/b\"]}").body())
                .path("segments").size(), "a refused file loads nothing");

        StringBuilder csv = new StringBuilder("device,segment,score\n");
        for (int d = 0; d < 20; d++) {
            csv.append("bulk-").append(d).append(",autos,").append(d / 10.0).append('\n');
            csv.append("bulk-").append(d).append(",travel,").append(1 + d).append('\n');
        }
        csv.append("unknown,autos,1\n");
        java.nio.file.Path good = dir.resolve("good.csv");
        java.nio.file.Files.writeString(good, csv);
        var summary = loader.load(good);
        assertTrue(summary.staging().startsWith("file:" + clusterStaging + "/adreport-segments-"), summary.staging());
        assertEquals(List.of(), List.of(java.nio.file.Files.list(clusterStaging).toArray()), "the staging directory is removed");
        assertEquals(40, summary.cells());
        assertEquals(1, summary.skippedUnidentified());
        assertTrue(summary.files() >= 10, "chunks of 3 cells: many HFiles, " + summary.files());
        for (int d = 0; d < 20; d++) {
            JsonNode seg = JSON.readTree(check(adserver, "{\"device\": \"bulk-" + d + "\", \"campaigns\": [\"a/b\"]}").body())
                    .path("segments");
            assertEquals(d / 10.0, seg.path("autos").asDouble(), "device " + d);
            assertEquals(1.0 + d, seg.path("travel").asDouble(), "device " + d);
        }
    }

    @Test
    void theNightlyPassRestoresViewsLostBetweenTheRawWriteAndTheCapWrite() throws Exception {
        assertEquals(201, put("/v1/campaigns/adv1/c4", adv1, "{\"frequencyCaps\": [{\"max\": 2, \"window\": \"7d\"}]}").statusCode());
        serving.registry().refresh();
        Instant t = T0.plus(Duration.ofDays(4));
        clock.set(t);
        // a crash after the raw write, before the view write: raw rows exist, the profile does not know them
        DeviceHasher hasher = new DeviceHasher(SECRET);
        EventParser parser = new EventParser(layout.cube(), clock, Duration.ofDays(7), hasher);
        io.adreport.schema.event.RawEventCodec codec = new io.adreport.schema.event.RawEventCodec(
                new io.adreport.schema.rowkey.RowKeyCodec(layout.cube()));
        try (Table raw = hbase.connection().getTable(layout.rawTable())) {
            for (int i = 0; i < 2; i++) {
                raw.put(codec.toPut(parser.parse(JSON.readTree(impression("lost-" + i, t.plusSeconds(i), "device-lost", "adv1", "c4"))), t));
            }
            raw.put(codec.toPut(parser.parse(JSON.readTree(impression("lost-ph", t, "unknown", "adv1", "c4"))), t));
        }
        clock.set(t.plusSeconds(10));
        assertEquals("allowed", answer("device-lost", "adv1/c4", clock.instant()), "the views were lost: under-capped");
        var repair = new io.adreport.reconcile.profiles.ViewRepair(hbase.connection(), layout,
                new io.adreport.schema.profile.UnidentifiedDevices(hasher, ProfileConfig.defaults().placeholders()));
        var summary = repair.repair(java.time.LocalDate.ofInstant(t, java.time.ZoneOffset.UTC));
        assertTrue(summary.impressions() >= 3, "impressions of the day: " + summary);
        assertEquals("capped 7d 2/2", answer("device-lost", "adv1/c4", clock.instant()));
        var again = repair.repair(java.time.LocalDate.ofInstant(t, java.time.ZoneOffset.UTC));
        assertEquals(summary, again, "the pass is idempotent");
        assertEquals("capped 7d 2/2", answer("device-lost", "adv1/c4", clock.instant()), "a repeated pass adds no view");
        byte[] placeholderRow = new io.adreport.schema.profile.ProfileKey(layout.cube().saltBuckets()).row(hasher.hash("unknown"));
        try (Table profiles = hbase.connection().getTable(layout.profilesTable())) {
            assertTrue(profiles.get(new org.apache.hadoop.hbase.client.Get(placeholderRow)).isEmpty(), "placeholders stay unwritten");
        }
    }

    @Test
    void aDeviceAboveTheHumanCeilingIsCountedOnce() throws Exception {
        Instant t = T0.plus(Duration.ofDays(5));
        clock.set(t);
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 75; i++) { // ceiling: profiles.hot.views.per.minute = 60
            batch.append(i == 0 ? "" : ",").append(impression("hot-" + i, t.plusMillis(i), "device-hot", "adv1", "c5"));
        }
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofString(batch.append(']').toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        String metrics = agg.metrics().scrape();
        assertTrue(metrics.lines().anyMatch(l -> l.trim().matches("adreport_hot_devices_total(\\{\\})? 1(\\.0)?")), "one hot device, counted once:\n" + metrics.lines()
                .filter(l -> l.contains("hot") || l.contains("profile_views")).toList());
        assertTrue(metrics.contains("adreport_profile_views_written_total"), "view writes are in /metrics");
    }

    @Test
    void adSelectionSkipsPausedEndedAndCappedCampaignsAndItsBeaconCountsAsAView() throws Exception {
        String pub = deps("publisher:site1");
        String other = deps("publisher:site2");
        Instant t = T0.plus(Duration.ofDays(6));
        clock.set(t);
        java.time.LocalDate today = java.time.LocalDate.ofInstant(t, java.time.ZoneOffset.UTC);
        assertEquals(201, put("/v1/campaigns/adv1/s-top", adv1, "{\"frequencyCaps\": [{\"max\": 1, \"window\": \"5m\"}]}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/s-paused", adv1, "{\"status\": \"paused\"}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/s-ended", adv1, "{\"end\": \"" + today.minusDays(1) + "\"}").statusCode());
        assertEquals(201, put("/v1/campaigns/adv1/s-next", adv1, "{}").statusCode());
        String zone = "{\"ads\": [" + zoneAd("s-paused", 9000) + "," + zoneAd("s-ended", 8000) + "," + zoneAd("s-top", 5000) + ","
                + zoneAd("s-next", 3000) + "," + zoneAd("s-unregistered", 9999) + "]}";
        assertEquals(403, put("/v1/zones/site1/z1", other, zone).statusCode(), "a publisher manages only its own site");
        HttpResponse<String> badZone = put("/v1/zones/site1/z1", pub, "{\"ads\": [{\"advertiser\": \"adv1\", \"campaign\": \"x\", "
                + "\"creative\": \"c\", \"ecpmMicros\": 0}]}");
        assertEquals("ads.ecpmMicros", JSON.readTree(badZone.body()).path("parameter").asText(), badZone.body());
        assertEquals(201, put("/v1/zones/site1/z1", pub, zone).statusCode());
        serving.registry().refresh();

        JsonNode first = JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"z1\", \"device\": \"sel-dev\", \"count\": 5, "
                + "\"country\": \"US\", \"deviceType\": \"phone\"}"));
        List<String> order = new ArrayList<>();
        first.path("ads").forEach(a -> order.add(a.path("campaign").asText()));
        assertEquals(List.of("s-top", "s-next"), order, "paused, ended and unregistered campaigns are never chosen");
        // fire the impression beacon the answer carries (signed), through the real ingest pixel
        String beacon = first.path("ads").get(0).path("beacons").path("impression").asText();
        String pixel = beacon.replace("http://localhost:8081", "http://127.0.0.1:" + agg.port());
        HttpResponse<String> fired = HTTP.send(HttpRequest.newBuilder(URI.create(pixel)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, fired.statusCode());
        assertEquals("stored", fired.headers().firstValue("X-Adreport-Beacon").orElse(""), fired.headers().toString());
        JsonNode second = JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"z1\", \"device\": \"sel-dev\"}"));
        assertEquals("s-next", second.path("ads").get(0).path("campaign").asText(), "capped (1 per 5m) after its impression");
        clock.set(t.plus(Duration.ofMinutes(5)).plusMillis(1));
        JsonNode later = JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"z1\", \"device\": \"sel-dev\"}"));
        assertEquals("s-top", later.path("ads").get(0).path("campaign").asText(), "the cap window has passed");
        assertEquals(0, JSON.readTree(serve("{\"site\": \"site1\", \"zone\": \"nope\", \"device\": \"d\"}")).path("ads").size());
    }

    private String deps(String role) throws Exception {
        return io.adreport.report.api.ReportApi.apiKeys(new io.adreport.schema.meta.ApiKeyStore(hbase.connection(), layout, clock),
                layout.cube(), ReportConfig.defaults(), clock).create(role);
    }

    private static String zoneAd(String campaign, long ecpm) {
        return "{\"advertiser\": \"adv1\", \"campaign\": \"" + campaign + "\", \"creative\": \"" + campaign + "-cr\", \"ecpmMicros\": "
                + ecpm + "}";
    }

    private String serve(String body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/serve/ad")).header("Authorization", "Bearer " + adserver)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    /** Expected answer from the sent view times alone: the shortest reached window, or allowed. */
    private static String oracle(List<Long> views, long[] windows, int[] max, long now) {
        for (int i = 0; i < windows.length; i++) {
            long w = windows[i];
            long inside = views.stream().filter(v -> v > now - w).count();
            if (inside >= max[i]) {
                return "capped " + text(w) + " " + inside + "/" + max[i];
            }
        }
        return "allowed";
    }

    private static String text(long w) {
        return w % 86_400_000L == 0 ? w / 86_400_000L + "d" : w % 3_600_000L == 0 ? w / 3_600_000L + "h" : w / 60_000L + "m";
    }

    private String answer(String device, String campaign, Instant now) throws Exception {
        return stack.answer(device, campaign, now);
    }

    private static String impression(String id, Instant ts, String device, String advertiser, String campaign) {
        return ServingStack.impression(id, ts, device, advertiser, campaign);
    }

    private HttpResponse<String> ingest(String event) throws Exception {
        return stack.ingest(event);
    }

    private HttpResponse<String> check(String key, String body) throws Exception {
        return stack.check(key, body);
    }

    private HttpResponse<String> put(String path, String key, String body) throws Exception {
        return stack.put(path, key, body);
    }

    private HttpResponse<String> get(String path, String key) throws Exception {
        return stack.get(path, key);
    }
}
