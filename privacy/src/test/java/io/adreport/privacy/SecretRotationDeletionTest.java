package io.adreport.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A privacy deletion asked for after the device secret was rotated ({@code current=new,
 * previous=old}) and before any nightly pass moved the device: it must find the device's data
 * written under the old hash as well as the newer data, through the real aggregator, API and
 * worker. What is left is checked by the test's own scans of every table of the namespace for the
 * raw id and both hashes, in hex and binary; the other device's data is counted as sent.
 */
@ExtendWith(HBaseExtension.class)
class SecretRotationDeletionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final byte[] OLD = "0123456789abcdef-privacy-old".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NEW = "0123456789abcdef-privacy-new".getBytes(StandardCharsets.UTF_8);
    private static final String TARGET = "dev-rotated-1";
    private static final String OTHER = "dev-rotated-2";
    private static final Instant T0 = Instant.parse("2026-11-20T09:00:00Z");

    @Test
    void a_deletion_after_a_rotation_erases_what_the_device_has_under_the_old_and_the_new_secret(MiniHBase hbase) throws Exception {
        Cube cube = io.adreport.schema.cube.CubeLoader.parse("ads.yaml with 4 buckets",
                io.adreport.schema.cube.CubeLoader.defaultSource().text().replace("Buckets: 16", "Buckets: 4"));
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("privrot"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        MutableClock clock = new MutableClock(T0.plusSeconds(3600));
        DeviceHashes before = DeviceHashes.of(new DeviceHasher(OLD));
        DeviceHashes rotating = DeviceHashes.of(NEW, OLD);

        // Before the rotation: 5 impressions of each device and 2 clicks of the target; after it, 3 more impressions each.
        List<String> first = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            first.add(impression("t-old-" + i, T0.plusSeconds(60L * i), TARGET));
            first.add(impression("o-old-" + i, T0.plusSeconds(60L * i), OTHER));
        }
        first.add(click("t-clk-0", T0.plusSeconds(600), TARGET, "t-old-0"));
        first.add(click("t-clk-1", T0.plusSeconds(610), TARGET, "t-old-1"));
        ingest(hbase, layout, cube, clock, before, first);
        List<String> second = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            second.add(impression("t-new-" + i, T0.plusSeconds(1800 + 60L * i), TARGET));
            second.add(impression("o-new-" + i, T0.plusSeconds(1800 + 60L * i), OTHER));
        }
        ingest(hbase, layout, cube, clock, rotating, second);
        int targetEvents = 5 + 2 + 3;

        assertFalse(hits(hbase, layout, needles(TARGET, before, rotating)).isEmpty(), "the scan finds the device before (it can fail)");
        assertTrue(rawRowsWith(hbase, layout, before.current(TARGET)) == targetEvents,
                "every event of the target names its old hash (the older ones as their device, the newer as its previous hash)");

        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.defaults(), metrics, clock);
        DeletionWorker worker = new DeletionWorker(hbase.connection(), layout, PrivacyConfig.of(Map.of("privacy.worker.batch", "4")),
                Clock.systemUTC(), new Metrics());
        PrivacyRoutes privacy = PrivacyRoutes.create(layout, worker, rotating, new UnidentifiedDevices(rotating, List.of("unknown")),
                Clock.systemUTC(), metrics);
        Javalin api = ReportApi.create(deps, privacy.routes()).start("127.0.0.1", 0);
        try {
            String key = deps.keys().create("privacy");
            HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/privacy/deletions"))
                    .header("Authorization", "Bearer " + key).POST(HttpRequest.BodyPublishers.ofString("{\"device\":\"" + TARGET + "\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(202, created.statusCode(), created.body());
            String id = JSON.readTree(created.body()).path("id").asText();
            DeletionStore store = new DeletionStore(hbase.connection(), layout);
            for (int tick = 0; tick < 100 && store.get(id).orElseThrow().step() == DeletionStep.REQUESTED; tick++) {
                worker.tick();
            }
            Deletion d = store.get(id).orElseThrow();
            assertEquals(DeletionStep.UNREADABLE, d.step());
            assertEquals(targetEvents, d.eventsRewritten(), "every raw event of the device, old and new, found through its two indexes");
            assertEquals(List.of(), d.deviceHashes(), "the request row forgets both hashes");
            assertEquals(List.of(), hits(hbase, layout, needles(TARGET, before, rotating)),
                    "no readable cell of any table names the device, under either secret");
            assertEquals(5 + 3, rawRowsWith(hbase, layout, before.current(OTHER)),
                    "the other device's events keep their old hash (the older as their device, the newer as its previous hash)");
            assertEquals(3, rawRowsWith(hbase, layout, rotating.current(OTHER)), "and its newer ones their new hash");
            assertFalse(hits(hbase, layout, needles(OTHER, before, rotating)).isEmpty());
        } finally {
            api.stop();
        }
    }

    private static void ingest(MiniHBase hbase, TableLayout layout, Cube cube, MutableClock clock, DeviceHashes hashes, List<String> events)
            throws Exception {
        Aggregator agg = Aggregator.start(hbase.connection(), layout, new EventParser(cube, clock, Duration.ofDays(7), hashes),
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "privrot-test", "flush.interval.ms", "100")),
                clock, TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults());
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                    .POST(HttpRequest.BodyPublishers.ofString("[" + String.join(",", events) + "]")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(events.size(), JSON.readTree(r.body()).path("accepted").asInt(), r.body());
        } finally {
            agg.close();
        }
    }

    private static String impression(String id, Instant ts, String device) {
        return "{\"type\":\"impression\",\"id\":\"" + id + "\",\"ts\":\"" + ts + "\",\"device\":\"" + device + "\",\"advertiser\":\"adv1\","
                + "\"campaign\":\"c0\",\"creative\":\"cr\",\"publisher\":\"p\",\"zone\":\"z\",\"country\":\"US\",\"deviceType\":\"phone\","
                + "\"costMicros\":1000}";
    }

    private static String click(String id, Instant ts, String device, String impression) {
        return "{\"type\":\"click\",\"id\":\"" + id + "\",\"ts\":\"" + ts + "\",\"device\":\"" + device + "\",\"impressionId\":\""
                + impression + "\"}";
    }

    /** The raw id and its hash under each secret, in hex and in binary. */
    private static List<byte[]> needles(String device, DeviceHashes before, DeviceHashes rotating) {
        List<byte[]> out = new ArrayList<>(List.of(device.getBytes(StandardCharsets.UTF_8)));
        for (String h : List.of(before.current(device), rotating.current(device))) {
            out.add(h.getBytes(StandardCharsets.US_ASCII));
            out.add(HexFormat.of().parseHex(h));
        }
        return out;
    }

    /** Readable cells of any table of the namespace naming one of {@code needles} (row, qualifier or value). */
    private static List<String> hits(MiniHBase hbase, TableLayout layout, List<byte[]> needles) throws Exception {
        List<String> out = new ArrayList<>();
        for (TableName t : hbase.connection().getAdmin().listTableNamesByNamespace(layout.namespace())) {
            try (Table table = hbase.connection().getTable(t); ResultScanner rs = table.getScanner(new Scan().readAllVersions())) {
                for (Result r : rs) {
                    for (Cell c : r.rawCells()) {
                        for (byte[] n : needles) {
                            if (contains(CellUtil.cloneRow(c), n) || contains(CellUtil.cloneQualifier(c), n) || contains(CellUtil.cloneValue(c), n)) {
                                out.add(t.getNameAsString() + " " + c);
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    private static long rawRowsWith(MiniHBase hbase, TableLayout layout, String hashHex) throws Exception {
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

    private static boolean contains(byte[] hay, byte[] needle) {
        return PrivacyDeletionTest.contains(hay, needle);
    }
}
