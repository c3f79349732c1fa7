package io.adreport.aggregator.flush;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.aggregator.coalesce.CoalescingBuffer;
import io.adreport.aggregator.coalesce.RowCells;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WriterTotalsTest {
    private static final int COLUMNS = 3;

    /** One drained generation with the given (row, column, delta) adds. */
    private static List<RowCells> generation(Object... adds) {
        CoalescingBuffer b = new CoalescingBuffer(COLUMNS, 1_000);
        for (int i = 0; i < adds.length; i += 3) {
            b.add(0, new byte[] {(byte) (int) (Integer) adds[i]}, 20_000, (Integer) adds[i + 1], (Long) adds[i + 2]);
        }
        return b.drain();
    }

    @Test
    void totals_grow_across_flushes_and_only_touched_columns_change() {
        WriterTotals t = new WriterTotals(100, new AtomicLong(7)::incrementAndGet, () -> 1_000L);
        t.begin(1);
        long[] first = t.add(generation(1, 0, 5L, 1, 2, 1L).get(0), COLUMNS).clone();
        assertArrayEquals(new long[] {5, 0, 1}, first);
        t.begin(1);
        long[] second = t.add(generation(1, 0, 3L).get(0), COLUMNS);
        assertArrayEquals(new long[] {8, 0, 1}, second, "absolute totals: the second flush writes 8, not 3");
        assertEquals(1, t.rows());
    }

    @Test
    void timestamps_rise_every_flush_even_when_the_clock_stands_still_or_goes_back() {
        AtomicLong wall = new AtomicLong(5_000);
        WriterTotals t = new WriterTotals(100, () -> 1, wall::get);
        long a = t.begin(0);
        long b = t.begin(0);
        wall.set(4_000);
        long c = t.begin(0);
        wall.set(9_000);
        long d = t.begin(0);
        assertEquals(5_000, a);
        assertTrue(a < b && b < c && c < d, a + " " + b + " " + c + " " + d);
        assertEquals(9_000, d);
    }

    @Test
    void when_full_it_starts_over_under_a_new_writer_id_with_totals_from_zero() {
        AtomicLong ids = new AtomicLong(100);
        WriterTotals t = new WriterTotals(3, ids::incrementAndGet, () -> 1L);
        long firstId = t.writer();
        List<RowCells> g = generation(1, 0, 1L, 2, 0, 1L, 3, 0, 1L);
        t.begin(g.size());
        g.forEach(rc -> t.add(rc, COLUMNS));
        assertEquals(3, t.rows());
        assertEquals(firstId, t.writer(), "three rows fit");
        List<RowCells> next = generation(4, 0, 4L);
        assertEquals(0, t.peakBytes(), "nothing measured yet: the first flush found no table, and measure() was not called");
        t.begin(next.size());
        assertNotEquals(firstId, t.writer(), "a fourth row might not fit: a new writer");
        assertEquals(1, t.startsOver());
        long peak = t.peakBytes();
        t.measure();
        assertTrue(t.bytes() > 0, "the kept row's table");
        assertTrue(peak > t.bytes(), "the old table and the new one were held at once: " + peak + " > " + t.bytes());
        assertEquals(peak, t.peakBytes(), "the rows after the start-over hold less than both tables did");
        assertArrayEquals(new long[] {4, 0, 0}, t.add(next.get(0), COLUMNS), "the new writer's cell starts from 0");
        assertEquals(t.writer(), t.lastWriter());
        assertEquals(2, t.rows(), "one of the three rows touched last kept (half the bound), and the new one");
    }

    @Test
    void a_live_read_visits_the_rows_of_one_table_with_their_day_and_totals() {
        WriterTotals t = new WriterTotals(100, () -> 9, () -> 1L);
        CoalescingBuffer b = new CoalescingBuffer(COLUMNS, 1_000);
        b.add(0, new byte[] {1}, 20_000, 0, 4L);
        b.add(1, new byte[] {1}, 20_001, 2, 6L);
        b.add(1, new byte[] {2}, 20_002, 1, 1L);
        List<RowCells> g = b.drain();
        t.begin(g.size());
        g.forEach(rc -> t.add(rc, COLUMNS));
        java.util.Map<Integer, long[]> seen = new java.util.TreeMap<>();
        t.forEach(1, (table, row, day, writer, totals) -> {
            assertEquals(1, table);
            assertEquals(20_000 + row[0], day, "the row's own day");
            seen.put((int) row[0], totals.clone());
        });
        assertEquals(2, seen.size(), "table 1 only");
        assertArrayEquals(new long[] {0, 0, 6}, seen.get(1));
        assertArrayEquals(new long[] {0, 1, 0}, seen.get(2));
        assertEquals(3, t.rows());
    }

    /** Adds one flush of (row, delta) pairs in column 0 and returns each row's total and writer id, by row. */
    private static java.util.Map<Integer, long[]> flush(WriterTotals t, Object... adds) {
        List<RowCells> g = generation(java.util.stream.IntStream.range(0, adds.length / 2)
                .mapToObj(i -> new Object[] {adds[2 * i], 0, adds[2 * i + 1]}).flatMap(java.util.Arrays::stream).toArray());
        t.begin(g.size());
        java.util.Map<Integer, long[]> out = new java.util.TreeMap<>();
        for (RowCells rc : g) {
            long total = t.add(rc, COLUMNS)[0];
            out.put((int) rc.row()[0], new long[] {total, t.lastWriter()});
        }
        return out;
    }

    @Test
    void a_start_over_keeps_the_rows_touched_last_under_their_id_and_forgets_the_others() {
        AtomicLong ids = new AtomicLong(100);
        WriterTotals t = new WriterTotals(5, ids::incrementAndGet, () -> 1L);
        long first = t.writer();
        flush(t, 1, 1L, 2, 1L, 3, 1L); // rows 1, 2, 3
        flush(t, 1, 1L); // row 1 again: the most recently touched
        // 3 + 3 > 5: a start-over keeps two rows (half the bound): row 1, touched last, and of rows 2
        // and 3 (touched at the same flush, remembered as long) the first in the table, row 2
        java.util.Map<Integer, long[]> after = flush(t, 1, 1L, 4, 1L, 5, 1L);
        assertEquals(1, t.startsOver());
        long second = t.writer();
        assertNotEquals(first, second);
        assertArrayEquals(new long[] {3, first}, after.get(1), "the hot row keeps its id and its total: no new cell");
        assertArrayEquals(new long[] {1, second}, after.get(4), "a new row: the new id");
        assertArrayEquals(new long[] {first}, t.retained(), "rows are still written under the first id");
        assertArrayEquals(new long[] {6, first}, flush(t, 2, 5L).get(2), "row 2 was kept: its first cell goes on");
        assertArrayEquals(new long[] {5, second}, flush(t, 3, 5L).get(3),
                "a forgotten row comes back under the new id, from 0 (its old cell keeps its old total)");
        assertEquals(1, t.startsOver(), "five rows fit: no second start-over");
    }

    @Test
    void a_flush_of_more_rows_than_the_bound_is_taken_whole_before_and_after_a_start_over() {
        AtomicLong ids = new AtomicLong(250);
        WriterTotals t = new WriterTotals(10, ids::incrementAndGet, () -> 1L);
        long first = t.writer();
        Object[] thirty = new Object[60];
        for (int r = 0; r < 30; r++) {
            thirty[2 * r] = r;
            thirty[2 * r + 1] = 1L;
        }
        // Nothing remembered yet, so no start-over: all 30 rows of one table under the first id.
        java.util.Map<Integer, long[]> before = flush(t, thirty);
        assertEquals(30, before.size());
        before.values().forEach(v -> assertArrayEquals(new long[] {1, first}, v));
        // A start-over keeps 5 of them (half the bound), then takes 30 again (of which 25 are new).
        java.util.Map<Integer, long[]> after = flush(t, thirty);
        assertEquals(1, t.startsOver());
        long kept = after.values().stream().filter(v -> v[1] == first).count();
        assertEquals(5, kept, "half the bound kept under the first id");
        after.values().forEach(v -> assertArrayEquals(new long[] {v[1] == first ? 2 : 1, v[1]}, v));
        assertEquals(30, t.rows());
    }

    @Test
    void a_live_read_names_each_rows_writer() {
        AtomicLong ids = new AtomicLong(200);
        WriterTotals t = new WriterTotals(5, ids::incrementAndGet, () -> 1L);
        long first = t.writer();
        flush(t, 1, 1L, 2, 1L, 3, 1L);
        flush(t, 1, 1L);
        flush(t, 1, 1L, 4, 1L, 5, 1L);
        java.util.Map<Integer, Long> writers = new java.util.TreeMap<>();
        t.forEach(0, (table, row, day, writer, totals) -> writers.put((int) row[0], writer));
        assertEquals(java.util.Map.of(1, first, 2, first, 4, t.writer(), 5, t.writer()), writers);
        t.get(0, new byte[] {1}, (table, row, day, writer, totals) -> assertEquals(first, writer));
    }

    @Test
    void at_most_max_ids_are_live_and_the_oldest_ids_rows_go_first() {
        AtomicLong ids = new AtomicLong(300);
        WriterTotals t = new WriterTotals(40, ids::incrementAndGet, () -> 1L);
        long first = t.writer();
        int cold = 1000;
        java.util.Map<Integer, long[]> last = null;
        // Every flush touches every hot row so far, adds one hot row and ten cold ones: the bound is
        // passed at nearly every flush, the hot rows are among the most recent and kept, and each
        // hot row is first written under the id of its own generation.
        for (int g = 0; g < WriterTotals.MAX_IDS + 4; g++) {
            List<Object> adds = new java.util.ArrayList<>();
            for (int h = 0; h <= g; h++) {
                adds.add(h);
                adds.add(1L);
            }
            for (int c = 0; c < 10; c++) {
                adds.add(cold++ % 250);
                adds.add(1L);
            }
            last = flush(t, adds.toArray());
            assertTrue(t.retained().length + 1 <= WriterTotals.MAX_IDS, "at most MAX_IDS ids, the current one included");
        }
        assertTrue(t.startsOver() >= WriterTotals.MAX_IDS, "a start-over at nearly every flush: " + t.startsOver());
        assertEquals(WriterTotals.MAX_IDS - 1, t.retained().length, "every slot in use");
        long[] h0 = last.get(0);
        assertNotEquals(first, h0[1], "the oldest id's rows were forgotten when a start-over needed its slot");
        assertTrue(h0[0] < WriterTotals.MAX_IDS + 4, "row 0 then restarted from 0: total " + h0[0]);
        long[] newest = last.get(WriterTotals.MAX_IDS + 3);
        assertEquals(1, newest[0]);
    }
}
