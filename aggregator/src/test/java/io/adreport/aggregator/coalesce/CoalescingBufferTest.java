package io.adreport.aggregator.coalesce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.adreport.schema.counting.CellSums;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
        List<RowCells> rows = b.drain();
        assertEquals(2, rows.size(), "one entry (one Increment) per table row");
        RowCells r1 = rows.stream().filter(r -> r.table() == 0).findFirst().orElseThrow();
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
        for (RowCells r : b.drain()) {
            for (int c = 0; c < 3; c++) {
                if ((r.touchedColumns() & (1 << c)) != 0) {
                    cells.put(r.table() + "/" + new String(r.row(), StandardCharsets.UTF_8) + "/" + c, r.delta(c));
                }
            }
        }
        assertEquals(Map.of("0/r1/0", 3L, "0/r1/1", 10L, "0/r1/2", 5L, "1/r1/1", 100L, "0/r2/0", 1000L), cells);
    }

    @Test
    void a_group_summed_first_lands_as_the_same_cells_as_its_deltas_added_one_by_one() throws Exception {
        // The same deltas (two tables, a zero sum, rows met again later) through CellSums, drained
        // by addRow, and through add one by one: equal cells, equal gauges.
        Object[][] deltas = {
            {0, "r1", 0, 1L}, {0, "r1", 1, 10L}, {1, "r1", 1, 100L}, {0, "r2", 0, 1000L},
            {0, "r1", 2, 5L}, {0, "r1", 0, 2L}, {1, "r3", 2, 4L}, {1, "r3", 2, -4L}, {0, "r2", 0, 7L},
        };
        CoalescingBuffer oneByOne = new CoalescingBuffer(3, 1000);
        CoalescingBuffer summed = new CoalescingBuffer(3, 1000);
        CellSums sums = new CellSums(3, 100);
        byte[] scratch = new byte[16]; // one key buffer reused for every row, as the fan-out hands them
        for (Object[] d : deltas) {
            byte[] row = bytes((String) d[1]);
            oneByOne.add((int) d[0], row, 7, (int) d[2], (long) d[3]);
            System.arraycopy(row, 0, scratch, 0, row.length);
            sums.addRow((int) d[0], scratch, row.length, new int[] {(int) d[2]}, new long[] {(long) d[3]}, 1);
        }
        assertEquals(4, sums.rows(), "one summed row per (table, row bytes)");
        try (CoalescingBuffer.Adder a = summed.adder()) {
            sums.drain((table, key, length, touched, values, offset) ->
                    a.addRow(table, key, length, 7, touched, values, offset));
        }
        assertEquals(oneByOne.cells(), summed.cells());
        assertEquals(oneByOne.bytes(), summed.bytes());
        assertEquals(cellsOf(oneByOne.drain()), cellsOf(summed.drain()));
    }

    private static Map<String, Long> cellsOf(List<RowCells> rows) {
        Map<String, Long> cells = new HashMap<>();
        for (RowCells r : rows) {
            for (int c = 0; c < 3; c++) {
                if ((r.touchedColumns() & (1 << c)) != 0) {
                    cells.put(r.table() + "/" + new String(r.row(), StandardCharsets.UTF_8) + "/" + c, r.delta(c));
                }
            }
        }
        return cells;
    }

    @Test
    void concurrent_adds_racing_with_drains_lose_and_duplicate_nothing() throws Exception {
        CoalescingBuffer b = new CoalescingBuffer(2, 1_000_000);
        int threads = 4;
        int perThread = 50_000;
        List<Callable<Void>> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            writers.add(() -> {
                for (int i = 0; i < perThread; i++) {
                    b.add(0, bytes("row" + ((i * 31 + seed) % 97)), 0, i % 2, 1);
                }
                return null;
            });
        }
        Map<String, Long> sums = new HashMap<>();
        // Drains race with the writers on this thread; a writer's failure surfaces here.
        Runnable drain = () -> {
            for (RowCells r : b.drain()) {
                for (int c = 0; c < 2; c++) {
                    sums.merge(new String(r.row(), StandardCharsets.UTF_8) + "/" + c, r.delta(c), Long::sum);
                }
            }
        };
        runOnThreads(writers, drain);
        drain.run();
        assertEquals((long) threads * perThread, sums.values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void a_full_buffer_makes_callers_wait_until_a_drain_frees_it() throws Exception {
        CoalescingBuffer b = new CoalescingBuffer(1, 10);
        for (int i = 0; i < 10; i++) {
            b.add(0, bytes("r" + i), 0, 0, 1);
        }
        assertTrue(b.full());
        int[] woken = {0};
        assertNull(b.reserve(1, TimeUnit.MILLISECONDS.toNanos(20), () -> woken[0]++), "stays full without a drain");
        assertEquals(1, woken[0], "a waiting reservation wakes the flusher");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> granted = pool.submit(() -> b.reserve(1, TimeUnit.SECONDS.toNanos(60), () -> { }) != null);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!b.roomWanted() && !granted.isDone() && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertFalse(granted.isDone(), "the waiter waits while the buffer is full");
            assertTrue(b.roomWanted(), "the flusher is asked to drain early");
            b.drain();
            assertTrue(resultOf(granted), "the drain lets the waiting reservation in");
            assertEquals(1, b.reserved());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void reservations_add_up_to_the_bound_and_a_release_lets_the_next_one_in() throws Exception {
        CoalescingBuffer b = new CoalescingBuffer(1, 100);
        Reservations.Room first = b.reserve(60, 0, () -> { });
        assertNotNull(first);
        assertNotNull(b.reserve(40, 0, () -> { }), "60 + 40 fit exactly");
        assertNull(b.reserve(1, 0, () -> { }), "nothing fits past 100");
        first.close();
        first.close(); // twice is harmless
        assertEquals(40, b.reserved());
        assertNotNull(b.reserve(60, 0, () -> { }));
        assertNull(b.reserve(1, 0, () -> { }));
    }

    @Test
    void a_request_larger_than_the_whole_buffer_is_admitted_alone_into_an_empty_one() throws Exception {
        CoalescingBuffer b = new CoalescingBuffer(1, 100);
        b.add(0, bytes("r"), 0, 0, 1);
        assertNull(b.reserve(500, 0, () -> { }), "not while anything waits in the buffer");
        b.drain();
        Reservations.Room big = b.reserve(500, 0, () -> { });
        assertNotNull(big, "alone into an empty buffer");
        assertNull(b.reserve(1, 0, () -> { }), "and nothing beside it");
        big.close();
        assertNotNull(b.reserve(1, 0, () -> { }));
    }

    @Test
    void writers_that_reserve_before_they_add_never_take_the_buffer_past_its_bound() throws Exception {
        int max = 500;
        CoalescingBuffer b = new CoalescingBuffer(1, max);
        int threads = 4;
        int requests = 300;
        java.util.concurrent.atomic.AtomicLong maxSeen = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong added = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong drained = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread drainer = new Thread(() -> {
            while (!done.get()) {
                long seen = b.cells();
                maxSeen.accumulateAndGet(seen, Math::max);
                if (b.roomWanted() || seen > max / 2) {
                    b.drain().forEach(r -> drained.addAndGet(r.delta(0)));
                }
                Thread.onSpinWait();
            }
        });
        drainer.start();
        List<Callable<Void>> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            writers.add(() -> {
                java.util.Random rnd = new java.util.Random(id);
                for (int r = 0; r < requests; r++) {
                    int cellsWanted = 1 + rnd.nextInt(120);
                    try (Reservations.Room room = b.reserve(cellsWanted, TimeUnit.SECONDS.toNanos(60), () -> { })) {
                        assertNotNull(room, "writer " + id + ", request " + r + ": no room for " + cellsWanted
                                + " cells within 60 s although a drainer runs");
                        for (int c = 0; c < cellsWanted; c++) {
                            b.add(0, bytes(id + "/" + r + "/" + c), 0, 0, 1);
                            added.incrementAndGet();
                            maxSeen.accumulateAndGet(b.cells(), Math::max);
                        }
                    }
                }
                return null;
            });
        }
        try {
            runOnThreads(writers, () -> { });
        } finally {
            done.set(true);
            drainer.join(60_000);
        }
        assertFalse(drainer.isAlive(), "the drainer stops");
        b.drain().forEach(r -> drained.addAndGet(r.delta(0)));
        assertTrue(maxSeen.get() > 0);
        assertTrue(maxSeen.get() <= max, "cells waiting never exceed the bound: " + maxSeen.get());
        assertEquals(added.get(), drained.get(), "every delta drained once");
        assertEquals(0, b.reserved());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Runs each task on a thread of its own and calls {@code whileRunning} on this thread about
     * every millisecond until all are done; a task's failure (an assertion included) is rethrown here, on the test thread,
     * where JUnit sees it. A task still running after {@link #CEILING} fails the test.
     */
    private static void runOnThreads(List<Callable<Void>> tasks, Runnable whileRunning) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> t : tasks) {
                futures.add(pool.submit(t));
            }
            long until = System.nanoTime() + CEILING.toNanos();
            while (!futures.stream().allMatch(Future::isDone) && System.nanoTime() < until) {
                whileRunning.run();
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                // a failed task need not wait for the others
                for (Future<Void> f : futures) {
                    if (f.isDone()) {
                        resultOf(f);
                    }
                }
            }
            for (Future<Void> f : futures) {
                resultOf(f);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The task's result, its failure rethrown as it was thrown, or a failure after {@link #CEILING}. */
    private static <T> T resultOf(Future<T> f) throws Exception {
        try {
            return f.get(CEILING.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("a task still runs after " + CEILING, e);
        }
    }

    private static final Duration CEILING = Duration.ofMinutes(2);

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
        assertNull(b.reserve(1, TimeUnit.MILLISECONDS.toNanos(20), () -> { }), "ingest is pushed back");
        b.drain();
        assertFalse(b.full(), "the flusher took the generation");
        assertNotNull(b.reserve(1, 0, () -> { }));
    }
}
