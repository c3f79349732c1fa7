package io.adreport.aggregator.flush;

import io.adreport.aggregator.coalesce.RowCells;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * This aggregator's writer cells ({@code CounterValues}): the running total it has counted into
 * each counter row under its current writer id, so that a flush writes absolute totals by plain
 * Puts instead of sending Increments (the region server then does no read-modify-write, and a
 * batch of Puts is one WAL append and sync where Increments are applied one by one).
 *
 * <p><b>Bounded.</b> It remembers at most {@code maxRows} rows. When a flush would take it past
 * that, it starts over: it forgets every row and draws a new writer id, so later flushes write new
 * writer cells whose totals start at 0; the old cells keep their totals, and a metric's value is
 * the sum of all its cells. A row touched again after a start-over holds one writer cell more.
 *
 * <p><b>Order.</b> Each flush's Puts carry one explicit timestamp, later than every earlier
 * flush's (and at least the wall clock's time), so a Put of an earlier flush that reaches the server
 * late (a call that timed out on the client) can never hide a newer total of the same cell.
 *
 * <p>Writer ids are random 64-bit numbers drawn per start (process or start-over): two writers
 * share one with probability ~2^-64 per pair. Not thread-safe: changed by the flush thread only
 * (flushes never overlap) and read by live reads, both under the {@code Flusher}'s live lock;
 * the metrics endpoint may read {@link #rows} and {@link #startsOver} at any time (approximate
 * values).
 *
 * <p>A generation with more rows than {@code maxRows} starts over at every flush (a wide back-fill
 * with a huge buffer): its rows then gain a writer cell per flush until the nightly job folds the
 * metrics it corrects. {@code adreport_writer_starts_over} shows it.
 */
final class WriterTotals {
    private final int maxRows;
    private final LongSupplier ids;
    private final LongSupplier millis;
    /** Per table index, the rows by key: a live read visits one rollup's rows only. */
    private final Map<Integer, Map<ByteBuffer, Total>> totals = new HashMap<>();
    private volatile int size; // written by the flush thread, read by the metrics endpoint
    private long writer;
    /** The id the next start-over takes, drawn in advance so that live answers can name it ({@code LiveCounts.Answer#nextWriter}). */
    private long next;
    private long lastTimestamp;
    private volatile long startsOver; // read by the metrics endpoint

    /** One row's totals, one slot per metric column, and the UTC epoch day of its bucket. */
    private record Total(int epochDay, long[] values) {
    }

    /** Receives one remembered row: its table, key, epoch day and totals (the map's own array: read, do not keep). */
    @FunctionalInterface
    interface RowVisitor {
        void row(int table, byte[] row, int epochDay, long[] totals);
    }

    /** {@code millis}: the region servers' kind of clock (wall time), not the business clock: cell versions are compared there. */
    WriterTotals(int maxRows, LongSupplier ids, LongSupplier millis) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1: " + maxRows);
        }
        this.maxRows = maxRows;
        this.ids = ids;
        this.millis = millis;
        this.writer = ids.getAsLong();
        this.next = ids.getAsLong();
    }

    /**
     * Starts a flush that adds at most {@code rows} rows (starting over first when they might not
     * fit) and returns the timestamp its Puts carry.
     */
    long begin(int rows) {
        if (size + rows > maxRows && size > 0) {
            totals.clear();
            size = 0;
            writer = next;
            next = ids.getAsLong();
            startsOver++;
        }
        lastTimestamp = Math.max(millis.getAsLong(), lastTimestamp + 1);
        return lastTimestamp;
    }

    /** The current writer id (changes only in {@link #begin}). */
    long writer() {
        return writer;
    }

    /** The id the next start-over takes (changes only in {@link #begin}). */
    long next() {
        return next;
    }

    /** How many times this writer started over under a new id. */
    long startsOver() {
        return startsOver;
    }

    /** Rows remembered. */
    int rows() {
        return size;
    }

    /**
     * Adds a drained row's deltas to its totals and returns them, one slot per column (the map's
     * own array: read it before the row's next add).
     */
    long[] add(RowCells rc, int columns) {
        Map<ByteBuffer, Total> ofTable = totals.computeIfAbsent(rc.table(), k -> new HashMap<>());
        Total total = ofTable.get(ByteBuffer.wrap(rc.row()));
        if (total == null) {
            total = new Total(rc.epochDay(), new long[columns]);
            ofTable.put(ByteBuffer.wrap(rc.row()), total);
            size++;
        }
        long[] t = total.values();
        int touched = rc.touchedColumns();
        for (int c = 0; c < columns; c++) {
            if ((touched & (1 << c)) != 0) {
                t[c] += rc.delta(c);
            }
        }
        return t;
    }

    /** Visits the remembered row {@code row} of {@code table}, if there is one. */
    void get(int table, byte[] row, RowVisitor visitor) {
        Total t = totals.getOrDefault(table, Map.of()).get(ByteBuffer.wrap(row));
        if (t != null) {
            visitor.row(table, row, t.epochDay(), t.values());
        }
    }

    /** Visits every remembered row of {@code table} (the live read: a pass over that table's rows, on the caller's lock). */
    void forEach(int table, RowVisitor visitor) {
        for (Map.Entry<ByteBuffer, Total> e : totals.getOrDefault(table, Map.of()).entrySet()) {
            visitor.row(table, e.getKey().array(), e.getValue().epochDay(), e.getValue().values());
        }
    }
}
