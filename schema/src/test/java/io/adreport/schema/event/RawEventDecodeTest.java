package io.adreport.schema.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decoding {@code e:v} values that the golden bytes do not cover: what the writer never writes
 * (escapes, members in another order, members it does not know) and what no row may hold (every
 * such value is refused with an {@link IllegalArgumentException}, which the readers count as
 * malformed). The expected events are spelled out here, not produced by the encoder.
 */
class RawEventDecodeTest {

    private static Event decode(String json) {
        return RawEventCodec.fromJson(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void members_in_any_order_with_escapes_and_unknown_members_skipped() {
        Event e = decode("{\"x\":{\"deep\":[1,{\"a\":2}]},\"h\":{\"device\":\"ab\"},\"n\":{\"cost\":7,\"clicks\":\"3\"},"
                + "\"d\":{\"zone\":\"a\\\"b\\u00e9\",\"country\":\"DE\",\"nested\":{\"no\":1}},\"ts\":1000,"
                + "\"id\":\"i-1\",\"type\":\"impression\",\"later\":[true,null]}");
        assertEquals(new Event("impression", "i-1", Instant.ofEpochMilli(1000),
                Map.of("zone", "a\"b\u00e9", "country", "DE", "nested", ""), Map.of("cost", 7L, "clicks", 3L), null,
                Map.of("device", "ab")), e);
    }

    @Test
    void type_and_join_may_be_absent_or_null_and_maps_may_be_missing() {
        Event e = decode("{\"type\":null,\"id\":\"w-9\",\"ts\":5,\"j\":null}");
        assertNull(e.type());
        assertNull(e.joinRef());
        assertTrue(e.dimensions().isEmpty() && e.numbers().isEmpty() && e.hashed().isEmpty());
        assertEquals("imp-1", decode("{\"id\":\"c-1\",\"ts\":5,\"j\":\"imp-1\",\"d\":{},\"n\":{},\"h\":{}}").joinRef());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[1,2]", "\"id\"", "{\"id\":\"a\"}", "{\"ts\":1}", "{\"id\":null,\"ts\":1}",
            "{\"id\":\"a\",\"ts\":null}", "{\"id\":\"\",\"ts\":1}", "{\"id\":\"a\",\"ts\":1,\"d\":{\"x\":", "{\"id\":\"a\",\"ts\":1"})
    void a_value_that_is_no_stored_event_is_refused(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(value));
        assertTrue(e.getMessage().startsWith("malformed raw event value"), e.getMessage());
    }
}
