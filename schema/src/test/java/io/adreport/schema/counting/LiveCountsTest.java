package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.rowkey.KeyRange;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveCountsTest {
    private static byte[] key(int salt, int minute, String values) {
        byte[] v = values.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] k = new byte[6 + v.length];
        k[0] = (byte) salt;
        k[1] = 0;
        k[2] = (byte) (minute >>> 24);
        k[3] = (byte) (minute >>> 16);
        k[4] = (byte) (minute >>> 8);
        k[5] = (byte) minute;
        System.arraycopy(v, 0, k, 6, v.length);
        return k;
    }

    @Test
    void a_request_and_an_answer_survive_the_wire() {
        LiveCounts.Request r = new LiveCounts.Request("by_campaign",
                List.of(new KeyRange(key(1, 10, ""), key(1, 20, "")), new KeyRange(key(3, 10, ""), key(3, 20, ""))), "adv1\0".getBytes());
        LiveCounts.Request back = LiveCounts.decodeRequest(LiveCounts.encode(r));
        assertEquals("by_campaign", back.rollup());
        assertEquals(2, back.ranges().size());
        assertArrayEquals(key(3, 20, ""), back.ranges().get(1).stop());
        assertArrayEquals("adv1\0".getBytes(), back.prefix());
        assertNull(LiveCounts.decodeRequest(LiveCounts.encode(LiveCounts.Request.writerOnly("net"))).prefix());

        LiveCounts.Answer a = new LiveCounts.Answer(-5L, List.of("impressions", "spend"),
                List.of(new LiveCounts.Row(key(1, 12, "adv1\0c\0"), new long[] {3, Long.MAX_VALUE})));
        LiveCounts.Answer again = LiveCounts.decodeAnswer(LiveCounts.encode(a));
        assertEquals(-5L, again.writer());
        assertEquals(a.metrics(), again.metrics());
        assertArrayEquals(key(1, 12, "adv1\0c\0"), again.rows().get(0).key());
        assertArrayEquals(new long[] {3, Long.MAX_VALUE}, again.rows().get(0).totals());
    }

    @Test
    void rows_are_wanted_inside_a_range_and_with_the_prefix_only() {
        LiveCounts.Request r = new LiveCounts.Request("by_campaign",
                List.of(new KeyRange(key(1, 10, ""), key(1, 20, ""))), "adv1\0".getBytes());
        assertTrue(r.wants(key(1, 10, "adv1\0c\0")));
        assertTrue(r.wants(key(1, 19, "adv1\0c\0")));
        assertFalse(r.wants(key(1, 20, "adv1\0c\0")), "the stop is exclusive");
        assertFalse(r.wants(key(2, 12, "adv1\0c\0")), "another salt bucket");
        assertFalse(r.wants(key(1, 12, "adv10\0c\0")), "a longer tenant sharing the first bytes");
        assertFalse(r.wants(key(1, 12, "ad")), "shorter than the prefix");
        assertFalse(LiveCounts.Request.writerOnly("x").wants(key(1, 12, "")), "no ranges, no rows");
    }

    @Test
    void a_malformed_body_is_refused_by_name() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LiveCounts.decodeRequest(new byte[] {0, 1, 'x', 0, 0, 0, 9}));
        assertTrue(e.getMessage().startsWith("body:"), e.getMessage());
        byte[] truncated = Arrays.copyOf(LiveCounts.encode(new LiveCounts.Answer(1, List.of("m"),
                List.of(new LiveCounts.Row(key(0, 0, "a"), new long[] {1})))), 20);
        assertThrows(IllegalArgumentException.class, () -> LiveCounts.decodeAnswer(truncated));
    }
}
