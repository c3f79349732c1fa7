package io.adreport.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.privacy.Deletion;
import io.adreport.schema.privacy.DeletionStep;
import io.adreport.schema.privacy.DeletionStore;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileScanner;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Privacy deletion end to end on the mini cluster: events go through the real aggregator (which
 * writes the device index before the ack), days are recounted by the real reconcile job, the
 * deletion is requested over the real report API and carried out by a {@link DeletionWorker}
 * that the test ticks (a started worker is checked separately). What the tables hold is checked
 * by the test's own scans: every table of the namespace, every cell's row, qualifier and value,
 * for the raw id and the device hash in hex and binary. Counts are checked against
 * {@link #oracle}, computed from the events this test sent.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrivacyDeletionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final byte[] SECRET = "0123456789abcdef-privacy".getBytes(StandardCharsets.UTF_8);
    private static final LocalDate DAY = LocalDate.parse("2026-11-20");
    private static final LocalDate DAY_BEFORE = DAY.minusDays(1);
    private static final String TARGET = "dev-target-7";
    private static final String OTHER = "dev-other-3";

    private final MutableClock clock = new MutableClock(DAY.plusDays(1).atTime(12, 0).toInstant(ZoneOffset.UTC));
    private final DeviceHasher hasher = new DeviceHasher(SECRET);
    private final List<Sent> sent = new ArrayList<>();
    private MiniHBase hbase;
    private TableLayout layout;
    private Javalin api;
    private DeletionWorker worker;
    private String base;
    private String analyst;
    private String privacyKey;
    private String advertiser;
    private Reconciler reconciler;

    /** One event as sent: what the oracle counts. */
    private record Sent(LocalDate day, String type, String device, long cost) {
    }

    @BeforeAll
    void start(MiniHBase hbase) throws Exception {
        this.hbase = hbase;
        // The default ads cube with 4 salt buckets, parsed from text: the reconcile job ships the cube's text.
        Cube cube = io.adreport.schema.cube.CubeLoader.parse("ads.yaml with 4 buckets",
                io.adreport.schema.cube.CubeLoader.defaultSource().text().replace("Buckets: 16", "Buckets: 4"));
        layout = new TableLayout(cube, hbase.freshNamespace("privacy"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        Aggregator agg = Aggregator.start(hbase.connection(), layout, new EventParser(cube, clock, Duration.ofDays(7), hasher),
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "privacy-test", "flush.interval.ms", "100")),
                clock, TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults());
        try {
            // The target device: impressions on two days, clicks joined to some; another device; no device at all.
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 24; i++) {
                add(batch, impression("t-imp-" + i, at(DAY, i), TARGET, "c" + (i % 2), 1000 + i), DAY, "impression", TARGET, 1000 + i);
            }
            for (int i = 0; i < 6; i++) {
                add(batch, click("t-clk-" + i, at(DAY, 30 + i), TARGET, "t-imp-" + i), DAY, "click", TARGET, 0);
            }
            for (int i = 0; i < 4; i++) {
                add(batch, impression("t-old-" + i, at(DAY_BEFORE, i), TARGET, "c0", 500), DAY_BEFORE, "impression", TARGET, 500);
            }
            for (int i = 0; i < 10; i++) {
                add(batch, impression("o-imp-" + i, at(DAY, i), OTHER, "c0", 700), DAY, "impression", OTHER, 700);
            }
            for (int i = 0; i < 5; i++) {
                add(batch, impression("n-imp-" + i, at(DAY, i), null, "c1", 300), DAY, "impression", null, 300);
            }
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                    .POST(HttpRequest.BodyPublishers.ofString("[" + batch + "]")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(sent.size(), JSON.readTree(r.body()).path("accepted").asInt(), r.body());
        } finally {
            agg.close();
        }
        clock.advance(Duration.ofMinutes(5)); // the closed aggregator's heartbeat is stale: day close does not wait for it
        reconciler = new Reconciler(hbase.configuration(), hbase.connection(), layout,
                ReconcileConfig.of(Map.of("reconcile.grace.ms", "0")), clock);

        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.defaults(), metrics, clock);
        worker = newWorker(3); // small slices: the target's 34 events take several ticks
        PrivacyRoutes privacy = PrivacyRoutes.create(layout, worker, hasher, new UnidentifiedDevices(hasher, List.of("unknown")),
                Clock.systemUTC(), metrics);
        api = ReportApi.create(deps, privacy.routes()).start("127.0.0.1", 0);
        base = "http://127.0.0.1:" + api.port();
        analyst = deps.keys().create("analyst");
        privacyKey = deps.keys().create("privacy");
        advertiser = deps.keys().create("advertiser:adv1");
    }

    @AfterAll
    void stop() {
        if (api != null) {
            api.stop();
        }
    }

    private DeletionWorker newWorker(int batch) {
        // Step times and compaction checks compare with the region servers' wall clock.
        return new DeletionWorker(hbase.connection(), layout, PrivacyConfig.of(Map.of("privacy.worker.batch", String.valueOf(batch))),
                Clock.systemUTC(), new Metrics());
    }

    @Test
    @Order(1)
    void requests_are_checked_and_only_analyst_and_privacy_keys_may_make_them() throws Exception {
        assertEquals(401, post("/v1/privacy/deletions", null, "{\"device\":\"x\"}").statusCode());
        assertEquals(403, post("/v1/privacy/deletions", advertiser, "{\"device\":\"x\"}").statusCode());
        assertEquals(403, get("/v1/privacy/deletions/" + "0".repeat(32), advertiser).statusCode());
        HttpResponse<String> bad = post("/v1/privacy/deletions", privacyKey, "{}");
        assertEquals(400, bad.statusCode(), bad.body());
        assertEquals("device", JSON.readTree(bad.body()).path("parameter").asText());
        bad = post("/v1/privacy/deletions", privacyKey, "{\"device\":\"unknown\"}");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("placeholder"), bad.body());
        assertEquals(400, post("/v1/privacy/deletions", privacyKey, "[1]").statusCode());
        assertEquals(404, get("/v1/privacy/deletions/" + "0".repeat(32), privacyKey).statusCode());
        assertEquals(404, get("/v1/privacy/deletions/nope", analyst).statusCode());
        assertEquals(403, get("/v1/reports/network?from=2026-11-20&to=2026-11-21", privacyKey).statusCode(),
                "a privacy key reads no report");
    }

    @Test
    @Order(2)
    void a_deletion_makes_the_device_unreadable_then_physically_gone_and_reports_stay_exact() throws Exception {
        reconcile(DAY);
        reconcile(DAY_BEFORE);
        Map<String, Long> countersBefore = counters();
        assertOracle();
        assertFalse(hits(false).isEmpty(), "the scan finds the device before the deletion (it can fail)");
        assertTrue(hits(false).stream().anyMatch(h -> h.startsWith(layout.rawTable().getNameAsString())));
        assertTrue(hits(false).stream().anyMatch(h -> h.startsWith(layout.profilesTable().getNameAsString())));
        hbase.connection().getAdmin().flush(layout.rawTable());
        hbase.connection().getAdmin().flush(layout.profilesTable());
        assertFalse(storeFileHits().isEmpty(), "the store-file scan finds the device once flushed (it can fail)");

        HttpResponse<String> created = post("/v1/privacy/deletions", privacyKey, "{\"device\":\"" + TARGET + "\"}");
        assertEquals(202, created.statusCode(), created.body());
        String id = JSON.readTree(created.body()).path("id").asText();
        assertEquals("requested", status(id).path("step").asText());
        assertTrue(hits(false).stream().anyMatch(h -> h.startsWith(layout.privacyTable().getNameAsString())),
                "the request row holds the hash until unreadable");

        // Slices of 3 events: the first tick rewrites some, not all.
        worker.tick();
        Deletion partway = store().get(id).orElseThrow();
        assertEquals(DeletionStep.REQUESTED, partway.step());
        assertEquals(3, partway.eventsRewritten());

        // Restart in the middle of "requested": a new worker resumes from the index.
        worker = newWorker(5);
        tickUntil(id, DeletionStep.UNREADABLE);
        Deletion unreadable = store().get(id).orElseThrow();
        assertNull(unreadable.deviceHash(), "the request row forgets the hash with the step");
        assertEquals(34, unreadable.eventsRewritten(), "every raw event of the device, found through its index");
        assertTrue(unreadable.profileCells() > 0);
        assertEquals(List.of(), hits(false), "after unreadable no readable cell of any table names the device");

        // Restart after "unreadable" was recorded: another new worker carries on.
        worker = newWorker(5);
        JsonNode done = tickUntil(id, DeletionStep.DONE);
        assertEquals(List.of("requested", "unreadable", "compacted", "snapshots-expired", "done"),
                done.path("steps").findValuesAsText("step"));
        List<Instant> times = done.path("steps").findValuesAsText("at").stream().map(Instant::parse).toList();
        for (int i = 1; i < times.size(); i++) {
            assertFalse(times.get(i).isBefore(times.get(i - 1)), "step times in order: " + times);
        }
        assertEquals(List.of(), hits(true), "after compacted a raw scan of every table finds no cell of the device");
        assertEquals(List.of(), storeFileHits(), "after compacted no store file holds the device");

        // Reports: the events still count; a recount of both days changes nothing.
        assertEquals(countersBefore, counters());
        DriftReport again = reconcile(DAY);
        assertEquals(0, again.totals().cellsCorrected(), "the recount without the device field gives the same counters");
        assertEquals(sent.stream().filter(s -> s.day().equals(DAY)).count(), again.totals().eventsRead());
        assertEquals(0, reconcile(DAY_BEFORE).totals().cellsCorrected());
        assertEquals(countersBefore, counters());
        assertOracle();

        // The other device is untouched.
        String other = hasher.hash(OTHER);
        assertEquals(10, rawRowsWith(other));
    }

    @Test
    @Order(3)
    void a_second_request_for_the_same_device_and_an_unknown_device_complete_with_nothing_to_delete() throws Exception {
        Map<String, Long> countersBefore = counters();
        for (String device : List.of(TARGET, "never-seen-device")) {
            HttpResponse<String> created = post("/v1/privacy/deletions", analyst, "{\"device\":\"" + device + "\"}");
            assertEquals(202, created.statusCode(), created.body());
            String id = JSON.readTree(created.body()).path("id").asText();
            JsonNode done = tickUntil(id, DeletionStep.DONE);
            assertEquals(0, done.path("eventsRewritten").asLong(), done.toString());
            assertEquals(0, done.path("profileCells").asLong(), done.toString());
        }
        assertEquals(countersBefore, counters());
        assertEquals(10, rawRowsWith(hasher.hash(OTHER)));
        assertEquals(List.of(), hits(true));
    }

    @Test
    @Order(4)
    void a_snapshot_taken_before_the_request_holds_the_deletion_at_compacted_until_it_is_gone() throws Exception {
        String snapshot = layout.namespace() + "_before_request";
        hbase.connection().getAdmin().snapshot(snapshot, layout.profilesTable());
        Thread.sleep(5);
        HttpResponse<String> created = post("/v1/privacy/deletions", privacyKey, "{\"device\":\"dev-snapshotted\"}");
        String id = JSON.readTree(created.body()).path("id").asText();
        tickUntil(id, DeletionStep.COMPACTED);
        for (int i = 0; i < 5; i++) {
            worker.tick();
        }
        assertEquals("compacted", status(id).path("step").asText(), "an older snapshot still holds the old files");
        hbase.connection().getAdmin().deleteSnapshot(snapshot);
        assertEquals("done", tickUntil(id, DeletionStep.DONE).path("step").asText());
    }

    @Test
    @Order(5)
    void a_started_worker_carries_a_request_through_without_being_ticked() throws Exception {
        DeletionWorker started = newWorker(100).start();
        try {
            String id = store().create(hasher.hash("dev-background-1"), Instant.now());
            started.wake();
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (!store().get(id).orElseThrow().done()) {
                assertTrue(System.nanoTime() < deadline, "the started worker finishes within 3 minutes");
                Thread.sleep(100);
            }
        } finally {
            started.close();
        }
    }

    // ---- oracle and scans ------------------------------------------------------------------------

    private void assertOracle() throws Exception {
        for (LocalDate day : List.of(DAY, DAY_BEFORE)) {
            long impressions = sent.stream().filter(s -> s.day().equals(day) && s.type().equals("impression")).count();
            long clicks = sent.stream().filter(s -> s.day().equals(day) && s.type().equals("click")).count();
            long spend = sent.stream().filter(s -> s.day().equals(day)).mapToLong(Sent::cost).sum();
            HttpResponse<String> r = get("/v1/reports/network?from=" + day + "&to=" + day.plusDays(1)
                    + "&granularity=day&metrics=impressions,clicks,spendMicros", analyst);
            assertEquals(200, r.statusCode(), r.body());
            JsonNode m = JSON.readTree(r.body()).path("rows").path(0).path("metrics");
            assertEquals(impressions, m.path("impressions").asLong(), day + ": " + r.body());
            assertEquals(clicks, m.path("clicks").asLong(), day + ": " + r.body());
            assertEquals(spend, m.path("spendMicros").asLong(), day + ": " + r.body());
        }
    }

    private DriftReport reconcile(LocalDate day) throws Exception {
        return reconciler.reconcile(day, false, null);
    }

    /** Every counter cell of every rollup table. */
    private Map<String, Long> counters() throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (var rollup : layout.cube().rollups()) {
            TableName t = layout.counterTable(rollup);
            try (Table table = hbase.connection().getTable(t); ResultScanner rs = table.getScanner(new Scan())) {
                for (Result r : rs) {
                    for (Cell c : r.rawCells()) {
                        out.put(t.getQualifierAsString() + "/" + Bytes.toStringBinary(CellUtil.cloneRow(c)) + "/"
                                + Bytes.toString(CellUtil.cloneQualifier(c)), Bytes.toLong(CellUtil.cloneValue(c)));
                    }
                }
            }
        }
        return out;
    }

    private List<byte[]> needles() {
        String hash = hasher.hash(TARGET);
        return List.of(TARGET.getBytes(StandardCharsets.UTF_8), hash.getBytes(StandardCharsets.US_ASCII), HexFormat.of().parseHex(hash));
    }

    /**
     * Cells of any table of the namespace naming the target device, by scans with all versions:
     * normal reads, or raw ({@code setRaw}: also delete-marked cells and tombstones).
     */
    private List<String> hits(boolean raw) throws Exception {
        List<String> out = new ArrayList<>();
        for (TableName t : hbase.connection().getAdmin().listTableNamesByNamespace(layout.namespace())) {
            try (Table table = hbase.connection().getTable(t);
                 ResultScanner rs = table.getScanner(new Scan().readAllVersions().setRaw(raw))) {
                for (Result r : rs) {
                    for (Cell c : r.rawCells()) {
                        if (names(c)) {
                            out.add(t.getNameAsString() + " " + c);
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Cells naming the target device in any store file of any region of the namespace's tables. */
    private List<String> storeFileHits() throws Exception {
        List<String> out = new ArrayList<>();
        FileSystem fs = FileSystem.get(hbase.configuration());
        for (TableName t : hbase.connection().getAdmin().listTableNamesByNamespace(layout.namespace())) {
            for (HRegion region : hbase.util().getMiniHBaseCluster().getRegions(t)) {
                for (HStore store : region.getStores()) {
                    for (HStoreFile file : store.getStorefiles()) {
                        try (HFile.Reader reader = HFile.createReader(fs, file.getPath(), CacheConfig.DISABLED, true, hbase.configuration())) {
                            HFileScanner scanner = reader.getScanner(hbase.configuration(), false, false);
                            if (!scanner.seekTo()) {
                                continue;
                            }
                            do {
                                if (names(scanner.getCell())) {
                                    out.add(file.getPath() + " " + scanner.getCell());
                                }
                            } while (scanner.next());
                        }
                    }
                }
            }
        }
        return out;
    }

    private boolean names(Cell c) {
        for (byte[] n : needles()) {
            if (contains(CellUtil.cloneRow(c), n) || contains(CellUtil.cloneQualifier(c), n) || contains(CellUtil.cloneValue(c), n)) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code needle} occurs in {@code hay} (the raw id or a hash inside a stored cell). */
    static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private long rawRowsWith(String hashHex) throws Exception {
        long n = 0;
        byte[] needle = hashHex.getBytes(StandardCharsets.US_ASCII);
        try (Table table = hbase.connection().getTable(layout.rawTable()); ResultScanner rs = table.getScanner(new Scan())) {
            for (Result r : rs) {
                for (Cell c : r.rawCells()) {
                    if (contains(CellUtil.cloneValue(c), needle)) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    // ---- driving -------------------------------------------------------------------------------

    private DeletionStore store() {
        return new DeletionStore(hbase.connection(), layout);
    }

    private JsonNode tickUntil(String id, DeletionStep step) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (store().get(id).orElseThrow().step().compareTo(step) < 0) {
            assertTrue(System.nanoTime() < deadline, "deletion " + id + " reaches " + step.label() + " within 3 minutes: " + status(id));
            if (!worker.tick()) {
                Thread.sleep(200); // waiting for a compaction
            }
        }
        return status(id);
    }

    private JsonNode status(String id) throws Exception {
        HttpResponse<String> r = get("/v1/privacy/deletions/" + id, privacyKey);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    private HttpResponse<String> post(String path, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    // ---- events --------------------------------------------------------------------------------

    private void add(StringBuilder batch, String json, LocalDate day, String type, String device, long cost) {
        batch.append(batch.length() == 0 ? "" : ",").append(json);
        sent.add(new Sent(day, type, device, cost));
    }

    private static Instant at(LocalDate day, int minute) {
        return day.atTime(10, 0).toInstant(ZoneOffset.UTC).plusSeconds(60L * minute);
    }

    private static String impression(String id, Instant ts, String device, String campaign, long cost) {
        return "{\"type\":\"impression\",\"id\":\"" + id + "\",\"ts\":\"" + ts + "\"" + (device == null ? "" : ",\"device\":\"" + device + "\"")
                + ",\"advertiser\":\"adv1\",\"campaign\":\"" + campaign + "\",\"creative\":\"cr\",\"publisher\":\"p\",\"zone\":\"z\","
                + "\"country\":\"US\",\"deviceType\":\"phone\",\"costMicros\":" + cost + "}";
    }

    private static String click(String id, Instant ts, String device, String impressionId) {
        return "{\"type\":\"click\",\"id\":\"" + id + "\",\"ts\":\"" + ts + "\",\"device\":\"" + device + "\",\"impressionId\":\""
                + impressionId + "\"}";
    }
}
