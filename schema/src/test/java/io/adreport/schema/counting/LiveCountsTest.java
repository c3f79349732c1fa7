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
    void an_answer_names_the_next_writer_and_one_without_it_reads_as_zero() {
        LiveCounts.Answer a = new LiveCounts.Answer(7, List.of("m"), List.of(new LiveCounts.Row(key(0, 1, "a"), new long[] {2})), -9);
        byte[] wire = LiveCounts.encode(a);
        assertEquals(-9, LiveCounts.decodeAnswer(wire).nextWriter());
        LiveCounts.Answer older = LiveCounts.decodeAnswer(Arrays.copyOf(wire, wire.length - Long.BYTES - Integer.BYTES));
        assertEquals(0, older.nextWriter(), "an answer of an aggregator that does not send it");
        assertEquals(7, older.writer());
        assertArrayEquals(new long[] {2}, older.rows().get(0).totals());
    }

    @Test
    void an_answer_names_each_rows_writer_and_the_retained_ids_and_one_without_them_has_none() {
        LiveCounts.Answer a = new LiveCounts.Answer(7, List.of("m"), List.of(
                new LiveCounts.Row(key(0, 1, "a"), new long[] {2}, 7),
                new LiveCounts.Row(key(0, 2, "b"), new long[] {5}, -3),
                new LiveCounts.Row(key(0, 3, "c"), new long[] {1})), 9, new long[] {-3, 11});
        LiveCounts.Answer again = LiveCounts.decodeAnswer(LiveCounts.encode(a));
        assertArrayEquals(new long[] {-3, 11}, again.retained());
        assertArrayEquals(new long[] {7, -3, 11}, again.writers(), "the current id first");
        assertEquals(7, again.writerOf(again.rows().get(0)));
        assertEquals(-3, again.writerOf(again.rows().get(1)), "a row kept across a start-over: its own id");
        assertEquals(7, again.writerOf(again.rows().get(2)), "a row without an id: the current one");
        assertArrayEquals(new long[] {5}, again.rows().get(1).totals());
        assertEquals(9, again.nextWriter());

        LiveCounts.Answer plain = new LiveCounts.Answer(4, List.of("m"), List.of(new LiveCounts.Row(key(0, 1, "a"), new long[] {2}, 4)), 8);
        byte[] wire = LiveCounts.encode(plain);
        LiveCounts.Answer decoded = LiveCounts.decodeAnswer(wire);
        assertEquals(0, decoded.retained().length);
        assertEquals(4, decoded.writerOf(decoded.rows().get(0)));
        LiveCounts.Answer older = LiveCounts.decodeAnswer(Arrays.copyOf(wire, wire.length - Integer.BYTES));
        assertEquals(0, older.retained().length, "an answer of an aggregator that keeps no rows across a start-over");
        assertEquals(8, older.nextWriter());
        assertEquals(4, older.writerOf(older.rows().get(0)));
    }

    @Test
    void a_selection_of_many_ranges_wants_what_any_range_wants() {
        java.util.Random rnd = new java.util.Random(11);
        List<KeyRange> ranges = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) { // unsorted, overlapping, adjacent and empty ranges among them
            int from = rnd.nextInt(200);
            ranges.add(new KeyRange(key(1, from, ""), key(1, from + rnd.nextInt(12), "")));
        }
        LiveCounts.Selection s = new LiveCounts.Request("r", ranges, null).selection();
        for (int m = 0; m < 230; m++) {
            byte[] row = key(1, m, "x\0");
            boolean any = ranges.stream().anyMatch(r -> r.contains(row));
            assertEquals(any, s.wants(row), "minute " + m);
        }
        assertNull(s.points(), "ranges of more than one row");
    }

    @Test
    void single_row_ranges_are_points_and_keep_the_prefix_rule() {
        byte[] a = key(2, 60, "adv1\0c1\0");
        byte[] b = key(2, 120, "adv1\0c1\0");
        byte[] other = key(2, 60, "adv2\0c1\0");
        List<KeyRange> ranges = List.of(new KeyRange(b, Arrays.copyOf(b, b.length + 1)), new KeyRange(a, Arrays.copyOf(a, a.length + 1)),
                new KeyRange(other, Arrays.copyOf(other, other.length + 1)));
        LiveCounts.Selection s = new LiveCounts.Request("r", ranges, "adv1\0".getBytes()).selection();
        assertEquals(2, s.points().size(), "the key without the prefix is left out");
        assertArrayEquals(a, s.points().get(0), "in key order");
        assertArrayEquals(b, s.points().get(1));
        assertTrue(s.wants(a));
        assertFalse(s.wants(other));
        assertFalse(s.wants(Arrays.copyOf(a, a.length + 1)), "the row after a point");
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
