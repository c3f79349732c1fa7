package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** Bad input: every rule rejects with its message and stores nothing; the service keeps going. */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ValidationTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private TestStack.Window w;
    private FaultyTables tables;
    private Aggregator agg;
    private String ts;

    @BeforeAll
    void start(MiniHBase hbase) {
        w = TestStack.shared(hbase).window();
        tables = new FaultyTables(TableSource.of(hbase.connection(), Duration.ofSeconds(30)), w.layout().rawTable());
        agg = w.start(Map.of("ingest.beacons.signed", "optional"), tables); // the pixel test fires unsigned beacons
        ts = w.now.minusSeconds(60).toString();
    }

    @AfterAll
    void stop() {
        agg.close();
    }

    @Test
    void every_validation_rule_rejects_with_its_message_and_stores_nothing() throws Exception {
        String imp = "\"type\":\"impression\",\"id\":\"x%d\",\"ts\":\"" + ts + "\"";
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("{\"type\":\"view\",\"id\":\"a\",\"ts\":\"" + ts + "\"}", "type: must be one of impression, click, conversion");
        cases.put("{\"id\":\"a\",\"ts\":\"" + ts + "\"}", "type: is required");
        cases.put("{\"type\":\"impression\",\"ts\":\"" + ts + "\"}", "id: is required");
        cases.put("{\"type\":\"impression\",\"id\":\"a\"}", "ts: is required");
        cases.put("{\"type\":\"impression\",\"id\":\"a\",\"ts\":\"yesterday\"}",
                "ts: must be ISO-8601 with an offset (2026-11-29T10:15:00Z) or epoch milliseconds");
        cases.put("{\"type\":\"impression\",\"id\":\"a\",\"ts\":\"" + w.now.plusSeconds(301) + "\"}",
                "ts: must not be more than 5 minutes in the future");
        cases.put("{\"type\":\"impression\",\"id\":\"a\",\"ts\":" + w.now.minus(Duration.ofDays(8)).toEpochMilli() + "}",
                "ts: must not be older than the accept window (7 days)");
        cases.put("{\"type\":\"impression\",\"id\":\"" + "i".repeat(129) + "\",\"ts\":\"" + ts + "\"}", "id: must be at most 128 characters");
        cases.put("{" + imp.formatted(1) + ",\"advertiser\":\"" + "a".repeat(65) + "\"}", "advertiser: must be at most 64 characters");
        cases.put("{" + imp.formatted(2) + ",\"campaign\":\"c\\u0001\"}", "campaign: must not contain control characters");
        cases.put("{" + imp.formatted(3) + ",\"costMicros\":-1}", "costMicros: must be >= 0");
        cases.put("{" + imp.formatted(4) + ",\"costMicros\":1.5}", "costMicros: must be an integer");
        cases.put("{" + imp.formatted(5) + ",\"country\":\"u1\"}", "country: must match [A-Z]{2}");
        cases.put("{\"type\":\"click\",\"id\":\"k\",\"ts\":\"" + ts + "\"}", "impressionId: is required");
        cases.put("{" + imp.formatted(6) + ",\"impressionId\":\"i1\"}", "impressionId: only allowed for click, conversion");
        cases.put("[1]", "event: must be a JSON object");
        long countedBefore = agg.stats().countedEvents.get();
        for (var c : cases.entrySet()) {
            String body = c.getKey().startsWith("[") ? c.getKey() : "[" + c.getKey() + "]";
            HttpResponse<String> r = TestStack.post(agg, body);
            assertEquals(200, r.statusCode(), r.body());
            JsonNode n = JSON.readTree(r.body());
            assertEquals(0, n.get("accepted").asInt(), c.getKey());
            assertEquals(0, n.get("rejected").get(0).get("index").asInt());
            assertEquals(c.getValue(), n.get("rejected").get(0).get("error").asText(), c.getKey());
        }
        assertTrue(w.rawRows().keySet().stream().noneMatch(k -> k.matches("(impression|click|view)/(a|x\\d|k|i+)")),
                "nothing of a rejected event is stored");
        assertEquals(countedBefore, agg.stats().countedEvents.get(), "nothing of a rejected event is counted");
        assertTrue(agg.metrics().scrape().contains("adreport_ingest_rejected_total{reason=\"costMicros\"}"));
    }

    @Test
    void valid_events_of_a_batch_are_stored_when_others_are_rejected() throws Exception {
        String body = "{\"type\":\"impression\",\"id\":\"ok1\",\"ts\":\"" + ts + "\",\"advertiser\":\"v\"}\n"
                + "{\"type\":\"impression\",\"id\":\"bad\",\"ts\":\"" + ts + "\",\"costMicros\":-5}\n"
                + "\n"
                + "{\"type\":\"impression\",\"id\":\"ok2\",\"ts\":\"" + ts + "\",\"advertiser\":\"v\"}\n";
        HttpResponse<String> r = TestStack.post(agg, body);
        assertEquals(200, r.statusCode());
        assertEquals(JSON.readTree("{\"accepted\":2,\"duplicates\":0,\"rejected\":[{\"index\":1,\"error\":\"costMicros: must be >= 0\"}]}"),
                JSON.readTree(r.body()));
        assertTrue(w.rawRows().keySet().containsAll(List.of("impression/ok1", "impression/ok2")));
        assertTrue(!w.rawRows().containsKey("impression/bad"));
    }

    @Test
    void malformed_json_rejects_the_whole_body_naming_the_line() throws Exception {
        String body = "{\"type\":\"impression\",\"id\":\"m1\",\"ts\":\"" + ts + "\"}\n"
                + "{\"type\":\"impression\",\"id\":\"m2\",\"ts\":\"" + ts + "\"}\n"
                + "{\"type\":\"impression\",\"id\":\"m3\",\"ts\":\n";
        HttpResponse<String> r = TestStack.post(agg, body);
        assertEquals(400, r.statusCode());
        assertTrue(JSON.readTree(r.body()).get("error").asText().startsWith("line 3: malformed JSON"), r.body());

        HttpResponse<String> array = TestStack.post(agg, "[{\"type\":\"impression\",\"id\":\"m4\",\"ts\":\"" + ts + "\"}, {\"type\": ]");
        assertEquals(400, array.statusCode());
        assertTrue(JSON.readTree(array.body()).get("error").asText().startsWith("index 1: malformed JSON"), array.body());
        assertTrue(w.rawRows().keySet().stream().noneMatch(k -> k.startsWith("impression/m")), "nothing stored");
    }

    @Test
    void more_than_ten_thousand_events_or_ten_mebibytes_is_413() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= 10_000; i++) {
            many.append("{\"type\":\"impression\",\"id\":\"big").append(i).append("\",\"ts\":\"").append(ts).append("\"}\n");
        }
        assertEquals(413, TestStack.post(agg, many.toString()).statusCode());
        String huge = "{\"type\":\"impression\",\"id\":\"h\",\"ts\":\"" + ts + "\",\"pad\":\"" + "x".repeat(10 * 1024 * 1024) + "\"}";
        assertEquals(413, TestStack.post(agg, huge).statusCode());
        assertTrue(w.rawRows().keySet().stream().noneMatch(k -> k.startsWith("impression/big") || k.equals("impression/h")));
    }

    @Test
    void hbase_unreachable_answers_503_with_retry_after_and_a_retry_is_deduplicated() throws Exception {
        String body = "{\"type\":\"impression\",\"id\":\"u1\",\"ts\":\"" + ts + "\"}";
        tables.rawFailure = new IOException("injected: raw table unreachable");
        try {
            HttpResponse<String> r = TestStack.post(agg, body);
            assertEquals(503, r.statusCode(), r.body());
            assertEquals("1", r.headers().firstValue("Retry-After").orElse(null));
        } finally {
            tables.rawFailure = null;
        }
        assertTrue(TestStack.post(agg, body).body().contains("\"accepted\":1"));
        assertTrue(TestStack.post(agg, body).body().contains("\"duplicates\":1"));
    }

    @Test
    void pixel_stores_one_event_and_answers_a_gif() throws Exception {
        HttpResponse<byte[]> r = TestStack.HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + agg.port()
                + "/v1/pixel?type=impression&id=px1&ts=" + w.now.minusSeconds(5).toEpochMilli() + "&advertiser=pix&costMicros=250")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode());
        assertEquals("image/gif", r.headers().firstValue("Content-Type").orElse(""));
        assertArrayEquals(new byte[] {'G', 'I', 'F'}, java.util.Arrays.copyOf(r.body(), 3));
        assertTrue(w.rawRows().containsKey("impression/px1"));

        HttpResponse<byte[]> bad = TestStack.HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + agg.port()
                + "/v1/pixel?type=impression&id=px2")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(400, bad.statusCode());
        assertEquals("ts: is required", bad.headers().firstValue("X-Adreport-Error").orElse(""));
    }

    @Test
    void healthz_and_metrics_answer() {
        assertEquals(200, TestStack.get(agg, "/healthz").statusCode());
        HttpResponse<String> m = TestStack.get(agg, "/metrics");
        assertEquals(200, m.statusCode());
        for (String name : List.of("adreport_ingest_events_total", "adreport_raw_write_seconds_bucket", "adreport_buffer_cells",
                "adreport_buffer_bytes", "adreport_flush_seconds", "adreport_increments_sent_total", "adreport_cells_per_event",
                "adreport_flush_failures_total", "adreport_ingest_queue_wait_seconds", "adreport_ingest_late_events_total")) {
            assertTrue(m.body().contains(name), name);
        }
    }
}
