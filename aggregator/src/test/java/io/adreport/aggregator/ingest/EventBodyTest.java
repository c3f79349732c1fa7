package io.adreport.aggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventBodyTest {

    @Test
    void ndjson_skips_blank_lines_and_array_bodies_are_split_into_elements() {
        assertEquals(2, EventBody.parse(bytes("{\"a\":1}\n\n  \n{\"b\":2}\n")).size());
        assertEquals(3, EventBody.parse(bytes(" [ {\"a\":1}, {\"b\":2}, 3 ] ")).size());
        assertEquals(0, EventBody.parse(bytes("  \n")).size());
    }

    @Test
    void malformed_json_names_the_line_or_the_array_position() {
        IngestError e = assertThrows(IngestError.class, () -> EventBody.parse(bytes("{\"a\":1}\n{\"a\":\n")));
        assertEquals(400, e.status);
        assertTrue(e.getMessage().startsWith("line 2: malformed JSON"), e.getMessage());
        IngestError two = assertThrows(IngestError.class, () -> EventBody.parse(bytes("{\"a\":1} {\"b\":2}\n")));
        assertTrue(two.getMessage().startsWith("line 1: malformed JSON: more than one value"), two.getMessage());
        IngestError arr = assertThrows(IngestError.class, () -> EventBody.parse(bytes("[{\"a\":1},{\"a\" 1}]")));
        assertTrue(arr.getMessage().startsWith("index 1: malformed JSON"), arr.getMessage());
        IngestError open = assertThrows(IngestError.class, () -> EventBody.parse(bytes("[{\"a\":1},")));
        assertEquals(400, open.status);
    }

    @Test
    void more_than_ten_thousand_events_is_413() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i <= 10_000; i++) {
            sb.append(i == 0 ? "" : ",").append("{}");
        }
        assertEquals(413, assertThrows(IngestError.class, () -> EventBody.parse(bytes(sb + "]"))).status);
        assertEquals(10_000, EventBody.parse(bytes("{}\n".repeat(10_000))).size());
        assertEquals(413, assertThrows(IngestError.class, () -> EventBody.parse(bytes("{}\n".repeat(10_001)))).status);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
