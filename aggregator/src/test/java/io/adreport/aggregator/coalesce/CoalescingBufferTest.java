package io.adreport.aggregator.coalesce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class CoalescingBufferTest {

    @Test
    void deltas_for_the_same_row_and_column_are_summed_into_one_cell() {
        CoalescingBuffer b = new CoalescingBuffer(3, 1000);
        b.add(0, bytes("r1"), 7, 0, 5);
        b.add(0, bytes("r1"), 7, 0, 2);
        b.add(0, bytes("r1"), 7, 2, 1);
        b.add(1, bytes("r1"), 7, 0, 1); // same row bytes, other table
        assertEquals(3, b.cells());
        List<CoalescingBuffer.RowCells> rows = b.drain();
        assertEquals(2, rows.size(), "one entry (one Increment) per table row");
        CoalescingBuffer.RowCells r1 = rows.stream().filter(r -> r.table() == 0).findFirst().orElseThrow();
        assertEquals(7, r1.delta(0));
        assertEquals(1, r1.delta(2));
        assertEquals(0b101, r1.touchedColumns());
        assertEquals(0, b.cells());
        assertTrue(b.drain().isEmpty());
    }

    @Test
    void one_adder_reusing_a_key_array_across_columns_and_tables_keeps_them_apart() {
        CoalescingBuffer b = new CoalescingBuffer(3, 1000);
        byte[] shared = bytes("r1");
        try (CoalescingBuffer.Adder a = b.adder()) {
            a.add(0, shared, 7, 0, 1);
            a.add(0, shared, 7, 1, 10);
            a.add(1, shared, 7, 1, 100); // same array, other table
            a.add(0, bytes("r2"), 7, 0, 1000);
            a.add(0, shared, 7, 2, 5); // back to the first row after another
            a.add(0, bytes("r1"), 7, 0, 2); // equal bytes, another array
        }
        Map<String, Long> cells = new HashMap<>();
        for (CoalescingBuffer.RowCells r : b.drain()) {
            for (int c = 0; c < 3; c++) {
                if ((r.touchedColumns() & (1 << c)) != 0) {
                    cells.put(r.table() + "/" + new String(r.row(), StandardCharsets.UTF_8) + "/" + c, r.delta(c));
                }
            }
        }
        assertEquals(Map.of("0/r1/0", 3L, "0/r1/1", 10L, "0/r1/2", 5L, "1/r1/1", 100L, "0/r2/0", 1000L), cells);
    }

    @Test
    void concurrent_adds_racing_with_drains_lose_and_duplicate_nothing() throws Exception {
        CoalescingBuffer b = new CoalescingBuffer(2, 1_000_000);
        int threads = 4;
        int perThread = 50_000;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int seed = t;
            new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    b.add(0, bytes("row" + ((i * 31 + seed) % 97)), 0, i % 2, 1);
                }
                done.countDown();
            }).start();
        }
        Map<String, Long> sums = new HashMap<>();
        AtomicBoolean finished = new AtomicBoolean();
        while (!finished.get()) {
            finished.set(done.await(1, TimeUnit.MILLISECONDS));
            for (CoalescingBuffer.RowCells r : b.drain()) {
                for (int c = 0; c < 2; c++) {
                    sums.merge(new String(r.row(), StandardCharsets.UTF_8) + "/" + c, r.delta(c), Long::sum);
                }
            }
        }
        for (CoalescingBuffer.RowCells r : b.drain()) {
            for (int c = 0; c < 2; c++) {
                sums.merge(new String(r.row(), StandardCharsets.UTF_8) + "/" + c, r.delta(c), Long::sum);
            }
        }
        assertEquals((long) threads * perThread, sums.values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void a_full_buffer_makes_callers_wait_until_a_drain_frees_it() throws Exception {
        CoalescingBuffer b = new CoalescingBuffer(1, 10);
        for (int i = 0; i < 10; i++) {
            b.add(0, bytes("r" + i), 0, 0, 1);
        }
        assertTrue(b.full());
        assertFalse(b.awaitSpace(TimeUnit.MILLISECONDS.toNanos(20)), "stays full without a drain");
        List<Boolean> got = new ArrayList<>();
        Thread waiter = new Thread(() -> {
            try {
                got.add(b.awaitSpace(TimeUnit.SECONDS.toNanos(30)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        b.drain();
        waiter.join(30_000);
        assertEquals(List.of(true), got);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void with_an_age_bound_the_buffer_counts_as_full_once_its_oldest_delta_is_that_old_until_drained() throws Exception {
        io.adreport.testkit.MutableClock clock = new io.adreport.testkit.MutableClock(java.time.Instant.parse("2026-11-30T12:00:00Z"));
        CoalescingBuffer b = new CoalescingBuffer(1, 1_000_000, clock, java.time.Duration.ofSeconds(3));
        assertFalse(b.full(), "empty: no age");
        b.add(0, bytes("r"), 0, 0, 1);
        clock.advance(java.time.Duration.ofMillis(2_999));
        b.add(0, bytes("s"), 0, 0, 1); // a later add does not restart the age
        assertFalse(b.full());
        clock.advance(java.time.Duration.ofMillis(1));
        assertTrue(b.full(), "oldest delta 3 s old");
        assertFalse(b.awaitSpace(TimeUnit.MILLISECONDS.toNanos(20)), "ingest is pushed back");
        b.drain();
        assertFalse(b.full(), "the flusher took the generation");
        assertTrue(b.awaitSpace(0));
    }
}
