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
        List<RowCells> next = generation(1, 0, 4L);
        t.begin(next.size());
        assertNotEquals(firstId, t.writer(), "a fourth row might not fit: a new writer");
        assertEquals(1, t.startsOver());
        assertArrayEquals(new long[] {4, 0, 0}, t.add(next.get(0), COLUMNS), "the new writer's cell starts from 0");
        assertEquals(1, t.rows());
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
        t.forEach(1, (table, row, day, totals) -> {
            assertEquals(1, table);
            assertEquals(20_000 + row[0], day, "the row's own day");
            seen.put((int) row[0], totals.clone());
        });
        assertEquals(2, seen.size(), "table 1 only");
        assertArrayEquals(new long[] {0, 0, 6}, seen.get(1));
        assertArrayEquals(new long[] {0, 1, 0}, seen.get(2));
        assertEquals(3, t.rows());
    }
}
