package io.adreport.schema.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.CubeLoader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventParserTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    private static final DeviceHasher HASHER = new DeviceHasher("0123456789abcdef0123".getBytes());
    private static final EventParser PARSER = new EventParser(CubeLoader.defaultCube(), Clock.fixed(NOW, ZoneOffset.UTC),
            Duration.ofDays(7), HASHER);

    /** Parses through both inputs (tree and token stream) and checks they agree on the event or the error. */
    private static Event parse(String json) throws Exception {
        Object viaTree;
        try {
            viaTree = PARSER.parse(JSON.readTree(json));
        } catch (EventRejected e) {
            viaTree = e;
        }
        Object viaStream;
        try (JsonParser p = JSON.getFactory().createParser(json)) {
            p.nextToken();
            try {
                viaStream = PARSER.parse(p);
            } catch (EventRejected e) {
                viaStream = e;
            }
            assertNull(p.nextToken(), "the whole value is consumed, also when rejected");
        }
        assertEquals(describe(viaTree), describe(viaStream), "tree and stream agree on " + json);
        if (viaTree instanceof EventRejected e) {
            throw e;
        }
        return (Event) viaTree;
    }

    private static String describe(Object outcome) {
        return outcome instanceof EventRejected e ? "rejected: " + e.getMessage() : String.valueOf(outcome);
    }

    @Test
    void impression_is_normalized_and_device_is_hashed() throws Exception {
        Event e = parse("""
                {"type":"impression","id":"i1","ts":"2026-11-29T13:30:00+02:00","advertiser":"a1","campaign":"c1",
                 "country":"de","deviceType":"Mobile","device":"user-42","costMicros":1500,"unknownField":"ignored"}""");
        assertEquals(Instant.parse("2026-11-29T11:30:00Z"), e.ts());
        assertEquals(Map.of("advertiser", "a1", "campaign", "c1", "country", "DE", "deviceType", "mobile"), e.dimensions());
        assertEquals(1500L, e.number("costMicros"));
        assertEquals(HASHER.hash("user-42"), e.hashed().get("device"));
        assertFalse(new String(RawEventCodec.toJson(e)).contains("user-42"), "the raw device id is never stored");
    }

    @Test
    void undeclared_fields_are_skipped_whole_and_integer_ids_are_kept_as_text() throws Exception {
        Event e = parse("{\"extra\":{\"deep\":[1,{\"id\":\"not-me\"}]},\"type\":\"impression\",\"id\":42,"
                + "\"ts\":\"2026-11-29T11:00:00Z\",\"flag\":true,\"advertiser\":\"a1\",\"advertiser\":\"a2\",\"zone\":null}");
        assertEquals("42", e.id());
        assertEquals(Map.of("advertiser", "a2"), e.dimensions(), "the last of a repeated field wins; null is absent");
    }

    @Test
    void epoch_millis_are_accepted() throws Exception {
        Event e = parse("{\"type\":\"click\",\"id\":\"k1\",\"ts\":" + NOW.toEpochMilli() + ",\"impressionId\":\"i1\",\"advertiser\":\"x\"}");
        assertEquals(NOW, e.ts());
        assertEquals("i1", e.joinRef());
        assertEquals(Map.of(), e.dimensions(), "join events inherit dimensions; their own are ignored");
    }

    @Test
    void raw_json_round_trips() throws Exception {
        Event e = parse("{\"type\":\"conversion\",\"id\":\"v1\",\"ts\":\"2026-11-29T11:00:00Z\",\"impressionId\":\"i9\",\"valueMicros\":99}");
        assertEquals(e, RawEventCodec.fromJson(RawEventCodec.toJson(e)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown type      | {\"type\":\"view\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\"} | type: must be one of impression, click, conversion",
        "missing type      | {\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\"} | type: is required",
        "missing id        | {\"type\":\"impression\",\"ts\":\"2026-11-29T11:00:00Z\"} | id: is required",
        "empty id          | {\"type\":\"impression\",\"id\":\"\",\"ts\":\"2026-11-29T11:00:00Z\"} | id: must not be empty",
        "missing ts        | {\"type\":\"impression\",\"id\":\"x\"} | ts: is required",
        "ts without offset | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00\"} | ts: must be ISO-8601 with an offset (2026-11-29T10:15:00Z) or epoch milliseconds",
        "ts in the future  | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T12:05:01Z\"} | ts: must not be more than 5 minutes in the future",
        "ts too old        | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-22T11:59:59Z\"} | ts: must not be older than the accept window (7 days)",
        "control character | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"campaign\":\"a\\u0000b\"} | campaign: must not contain control characters",
        "newline in id     | {\"type\":\"impression\",\"id\":\"x\\ny\",\"ts\":\"2026-11-29T11:00:00Z\"} | id: must not contain control characters",
        "negative cost     | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"costMicros\":-1} | costMicros: must be >= 0",
        "fractional cost   | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"costMicros\":1.5} | costMicros: must be an integer",
        "bad country       | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"country\":\"D1\"} | country: must match [A-Z]{2}",
        "long country      | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"country\":\"DEU\"} | country: must be at most 2 characters",
        "click without imp | {\"type\":\"click\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\"} | impressionId: is required",
        "imp with join ref | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"impressionId\":\"y\"} | impressionId: only allowed for click, conversion",
        "object dimension  | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"zone\":{}} | zone: must be a string",
        "not an object     | [1,2] | event: must be a JSON object",
        "boolean id        | {\"type\":\"impression\",\"id\":true,\"ts\":\"2026-11-29T11:00:00Z\"} | id: must be a string",
        "array dimension   | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"zone\":[\"a\"]} | zone: must be a string",
        "string cost       | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"costMicros\":\"5\"} | costMicros: must be an integer",
        "huge cost         | {\"type\":\"impression\",\"id\":\"x\",\"ts\":\"2026-11-29T11:00:00Z\",\"costMicros\":99999999999999999999} | costMicros: must be an integer",
        "null ts           | {\"type\":\"impression\",\"id\":\"x\",\"ts\":null} | ts: is required",
        "object ts         | {\"type\":\"impression\",\"id\":\"x\",\"ts\":{\"a\":1}} | ts: must be ISO-8601 with an offset (2026-11-29T10:15:00Z) or epoch milliseconds",
    })
    void each_rule_rejects_with_field_and_rule(String rule, String json, String expected) {
        EventRejected e = assertThrows(EventRejected.class, () -> parse(json));
        assertEquals(expected, e.getMessage());
    }

    @Test
    void over_long_id_is_rejected() {
        String id = "x".repeat(129);
        EventRejected e = assertThrows(EventRejected.class,
                () -> parse("{\"type\":\"impression\",\"id\":\"" + id + "\",\"ts\":\"2026-11-29T11:00:00Z\"}"));
        assertEquals("id: must be at most 128 characters", e.getMessage());
    }

    @Test
    void content_hash_is_the_id_when_the_cube_has_no_id_field() throws Exception {
        EventParser wiki = new EventParser(io.adreport.schema.cube.CubeLoader.parse("wiki.yaml", """
                name: wiki
                event: {timeField: time}
                dimensions: [{name: channel}]
                metrics: [{name: edits, count: true}]
                rollups: [{name: channel, dimensions: [channel]}]
                """), Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofDays(7), (DeviceHasher) null);
        JsonNode a = JSON.readTree("{\"time\":\"2026-11-29T11:00:00Z\",\"channel\":\"#en\"}");
        JsonNode b = JSON.readTree("{\"time\":\"2026-11-29T11:00:00Z\",\"channel\":\"#de\"}");
        assertEquals(wiki.parse(a).id(), wiki.parse(a).id());
        assertFalse(wiki.parse(a).id().equals(wiki.parse(b).id()));
        assertNull(wiki.parse(a).type());
    }

    @Test
    void a_cube_with_hashed_fields_needs_a_secret() {
        assertThrows(IllegalArgumentException.class, () -> new EventParser(CubeLoader.defaultCube(), Clock.systemUTC(), Duration.ofDays(7), (DeviceHasher) null));
        assertThrows(IllegalArgumentException.class, () -> new DeviceHasher("short".getBytes()));
    }
}
