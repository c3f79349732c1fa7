package io.adreport.aggregator.flush;

import io.adreport.aggregator.coalesce.RowCells;
import io.adreport.schema.counting.CellSums;
import java.util.Arrays;
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
    /**
     * Per table index (a live read visits one rollup's rows only), the rows' totals in primitive
     * arrays ({@link CellSums}: one record per row holding its key and its totals, no object per
     * row): up to millions of rows live for hours, and as objects (a map node, a key wrapper, a
     * record and its array per row) every one of them was traced by each concurrent GC cycle.
     * Column {@code columns} of a record holds the row's UTC epoch day, set when the row is added.
     */
    private CellSums[] totals = new CellSums[0];
    private int columns = -1;
    private int[] columnIndexes;
    private long[] deltas;
    private long[] out; // the totals handed out, one reused array (read it before the next call)
    private volatile int size; // written by the flush thread, read by the metrics endpoint
    private long writer;
    /** The id the next start-over takes, drawn in advance so that live answers can name it ({@code LiveCounts.Answer#nextWriter}). */
    private long next;
    private long lastTimestamp;
    private volatile long startsOver; // read by the metrics endpoint

    /** Receives one remembered row: its table, key, epoch day and totals (a reused array: read, do not keep). */
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
            for (CellSums t : totals) {
                if (t != null) {
                    t.clear();
                }
            }
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
     * Adds a drained row's deltas to its totals and returns them, one slot per column (a reused
     * array: read it before the next call).
     */
    long[] add(RowCells rc, int columns) {
        CellSums table = table(rc.table(), columns);
        int n = 0;
        int touched = rc.touchedColumns();
        for (int c = 0; c < columns; c++) {
            if ((touched & (1 << c)) != 0) {
                columnIndexes[n] = c;
                deltas[n] = rc.delta(c);
                n++;
            }
        }
        int before = table.rows();
        byte[] row = rc.row();
        int record = table.addRow(rc.table(), row, row.length, columnIndexes, deltas, n);
        if (table.rows() > before) {
            table.set(record, columns, rc.epochDay());
            size++;
        }
        for (int c = 0; c < columns; c++) {
            out[c] = table.sum(record, c);
        }
        return out;
    }

    private CellSums table(int index, int columns) {
        if (this.columns != columns) {
            if (this.columns >= 0) {
                throw new IllegalStateException("one column count per writer: " + this.columns + ", then " + columns);
            }
            this.columns = columns;
            columnIndexes = new int[columns];
            deltas = new long[columns];
            out = new long[columns];
        }
        if (index >= totals.length) {
            totals = Arrays.copyOf(totals, index + 1);
        }
        if (totals[index] == null) {
            totals[index] = new CellSums(columns + 1, maxRows); // + the epoch day
        }
        return totals[index];
    }

    /** Visits the remembered row {@code row} of {@code table}, if there is one. */
    void get(int table, byte[] row, RowVisitor visitor) {
        CellSums t = table < totals.length ? totals[table] : null;
        int record = t == null ? -1 : t.record(table, row, row.length);
        if (record >= 0) {
            for (int c = 0; c < columns; c++) {
                out[c] = t.sum(record, c);
            }
            visitor.row(table, row, (int) t.sum(record, columns), out);
        }
    }

    /** Visits every remembered row of {@code table} (the live read: a pass over that table's rows, on the caller's lock). */
    void forEach(int table, RowVisitor visitor) {
        CellSums t = table < totals.length ? totals[table] : null;
        if (t == null) {
            return;
        }
        try {
            t.visit((tableIndex, key, keyLength, touched, sums, offset) -> {
                System.arraycopy(sums, offset, out, 0, columns);
                visitor.row(tableIndex, Arrays.copyOf(key, keyLength), (int) sums[offset + columns], out);
            });
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException("visiting the totals cannot fail", e); // the visitor throws neither
        }
    }
}
