package io.adreport.aggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventBodyTest {
    private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    private static final EventParser PARSER = new EventParser(CubeLoader.defaultCube(), Clock.fixed(NOW, ZoneOffset.UTC),
            Duration.ofDays(7), new DeviceHasher("0123456789abcdef0123".getBytes(StandardCharsets.UTF_8)));
    private static final String IMP = "{\"type\":\"impression\",\"id\":\"i%d\",\"ts\":\"2026-11-29T11:00:00Z\",\"advertiser\":\"a%d\"}";

    private static EventBody.Parsed parse(String body) {
        return EventBody.parse(body.getBytes(StandardCharsets.UTF_8), PARSER);
    }

    private static String imp(int i) {
        return IMP.formatted(i, i);
    }

    @Test
    void ndjson_skips_blank_lines_and_array_bodies_are_split_into_elements() {
        EventBody.Parsed nd = parse(imp(1) + "\n\n  \r\n" + imp(2) + "\r\n");
        assertEquals(List.of("i1", "i2"), nd.events().stream().map(e -> e.id()).toList());
        assertEquals("a2", nd.events().get(1).dimensions().get("advertiser"));
        assertEquals(3, parse(" [ " + imp(1) + ", " + imp(2) + ", 3 ] ").size());
        assertEquals(0, parse("  \n").size());
    }

    @Test
    void invalid_values_are_listed_by_position_and_the_valid_ones_kept() {
        EventBody.Parsed nd = parse(imp(1) + "\n[1,2]\n{\"type\":\"view\",\"id\":\"x\",\"ts\":1,\"nested\":{\"a\":[1,{}]}}\n\n" + imp(4) + "\n\"text\"\n");
        assertEquals(List.of("i1", "i4"), nd.events().stream().map(e -> e.id()).toList());
        assertEquals(List.of(1, 2, 4), nd.rejected().stream().map(EventBody.Rejected::index).toList());
        assertEquals("event: must be a JSON object", nd.rejected().get(0).error().getMessage());
        assertEquals("type: must be one of impression, click, conversion", nd.rejected().get(1).error().getMessage());
        EventBody.Parsed arr = parse("[" + imp(1) + ", {\"type\":\"impression\"}, {\"a\":{\"b\":[{}]}}, " + imp(3) + "]");
        assertEquals(List.of("i1", "i3"), arr.events().stream().map(e -> e.id()).toList());
        assertEquals(List.of(1, 2), arr.rejected().stream().map(EventBody.Rejected::index).toList());
    }

    @Test
    void malformed_json_names_the_line_or_the_array_position() {
        IngestError e = assertThrows(IngestError.class, () -> parse(imp(1) + "\n{\"a\":\n"));
        assertEquals(400, e.status);
        assertTrue(e.getMessage().startsWith("line 2: malformed JSON"), e.getMessage());
        IngestError two = assertThrows(IngestError.class, () -> parse("{\"a\":1} {\"b\":2}\n"));
        assertTrue(two.getMessage().startsWith("line 1: malformed JSON: more than one value"), two.getMessage());
        IngestError glued = assertThrows(IngestError.class, () -> parse(imp(1) + "\n{\"a\":1}{\"b\":2}\n"));
        assertTrue(glued.getMessage().startsWith("line 2: malformed JSON: more than one value"), glued.getMessage());
        IngestError spread = assertThrows(IngestError.class, () -> parse(imp(1) + "\n\n{\"a\":\n1}\n"));
        assertTrue(spread.getMessage().startsWith("line 3: malformed JSON"), spread.getMessage());
        IngestError stray = assertThrows(IngestError.class, () -> parse(imp(1) + "\n" + imp(2) + "\nnope\n"));
        assertTrue(stray.getMessage().startsWith("line 3: malformed JSON"), stray.getMessage());
        IngestError arr = assertThrows(IngestError.class, () -> parse("[{\"a\":1},{\"a\" 1}]"));
        assertTrue(arr.getMessage().startsWith("index 1: malformed JSON"), arr.getMessage());
        IngestError open = assertThrows(IngestError.class, () -> parse("[{\"a\":1},"));
        assertEquals(400, open.status);
    }

    @Test
    void more_than_ten_thousand_events_is_413() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i <= 10_000; i++) {
            sb.append(i == 0 ? "" : ",").append("{}");
        }
        assertEquals(413, assertThrows(IngestError.class, () -> parse(sb + "]")).status);
        assertEquals(10_000, parse("{}\n".repeat(10_000)).size());
        assertEquals(413, assertThrows(IngestError.class, () -> parse("{}\n".repeat(10_001))).status);
    }
}
