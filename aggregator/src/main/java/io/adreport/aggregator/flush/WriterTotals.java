package io.adreport.aggregator.flush;

import io.adreport.aggregator.coalesce.RowCells;
import io.adreport.schema.counting.CellSums;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * This aggregator's writer cells ({@code CounterValues}): the running total it has counted into
 * each counter row under that row's writer id, so that a flush writes absolute totals by plain
 * Puts instead of sending Increments (the region server then does no read-modify-write, and a
 * batch of Puts is one WAL append and sync where Increments are applied one by one).
 *
 * <p><b>Bounded, keeping the hot rows.</b> It remembers at most {@code maxRows} rows. When a flush
 * would take it past that, it starts over: it draws a new current writer id, keeps the rows it
 * touched most recently (at most {@link #KEEP_FRACTION} of the bound) and forgets the others. A
 * kept row keeps its writer id and its total, so its one cell keeps growing; a forgotten row
 * that comes back is counted under the current id from 0, an id it never had (ids are drawn at
 * start-overs, and a row forgotten at one comes back after it), and holds one writer cell more.
 * A metric's value is the sum of all its cells. Before, a start-over forgot every row: a back-fill
 * of one day (3.5M counter rows through a 500,000-row bound) then gave each hot row (its DAY and
 * HOUR rows) a cell per start-over, and the nightly pass folded 559,324 values
 * (docs/benchmarks/2026-12-07-nightly-first-pass-decomposed.md).
 *
 * <p><b>Several live ids.</b> So the rows of one aggregator are written under up to
 * {@link #MAX_IDS} ids at once: the current one (new rows) and the ids of earlier generations that
 * kept rows ({@link #retained}). When a start-over would need one more, the rows of the oldest id
 * are forgotten too. Live answers name each row's id ({@code LiveCounts.Row#writer}) and the
 * retained ids, so a reader replaces each row's own cell.
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
 */
final class WriterTotals {
    /** At a start-over, the most recently touched rows kept, as a share of the bound. */
    static final double KEEP_FRACTION = 0.5;
    /** Most writer ids whose rows are remembered at once (the current one included). */
    static final int MAX_IDS = 8;
    /** Columns of a record beyond the metrics: epoch day, id slot, last flush, first flush. */
    private static final int EXTRA = 4;
    /**
     * No cap per table beyond the arrays' own: {@code maxRows} bounds the totals through the
     * start-over rule (kept rows plus one flush's rows, and a flush's rows are bounded by the
     * coalescing buffer), not per table. With {@code maxRows} as each table's cap, a flush whose
     * rows of one table passed it (a back-fill's full buffer, or any flush after a start-over kept
     * half the bound) threw, and every later flush with it: the live counters stopped.
     */
    private static final int TABLE_ROWS = Integer.MAX_VALUE;

    private final int maxRows;
    private final LongSupplier ids;
    private final LongSupplier millis;
    /**
     * Per table index (a live read visits one rollup's rows only), the rows' totals in primitive
     * arrays ({@link CellSums}: one record per row holding its key and its totals, no object per
     * row): up to millions of rows live for hours, and as objects (a map node, a key wrapper, a
     * record and its array per row) every one of them was traced by each concurrent GC cycle.
     * Beyond the metric columns a record holds the row's UTC epoch day ({@link #day}), the slot of
     * its writer id ({@link #slot}), the flush that last touched it ({@link #seen}) and the flush
     * that added it ({@link #born}).
     */
    private CellSums[] totals = new CellSums[0];
    private int columns = -1;
    private int day;
    private int slot;
    private int seen;
    private int born;
    private int[] columnIndexes;
    private long[] deltas;
    private long[] out; // the totals handed out, one reused array (read it before the next call)
    private volatile int size; // written by the flush thread, read by the metrics endpoint
    /** The writer id of each slot (0: free) and the start-over that drew it. */
    private final long[] slotIds = new long[MAX_IDS];
    private final long[] slotDrawn = new long[MAX_IDS];
    private int current;
    /** The id the next start-over takes, drawn in advance so that live answers can name it ({@code LiveCounts.Answer#nextWriter}). */
    private long next;
    private long flushes;
    private long lastTimestamp;
    private long lastWriter; // the writer id of the row add() handed out last
    private volatile long startsOver; // read by the metrics endpoint
    private volatile long bytes; // read by the metrics endpoint: the tables' arrays once the last flush's rows were in
    private volatile long peakBytes; // the most the tables held at once (a start-over holds the old tables beside the new)

    /** Receives one remembered row: its table, key, epoch day, writer id and totals (a reused array: read, do not keep). */
    @FunctionalInterface
    interface RowVisitor {
        void row(int table, byte[] row, int epochDay, long writer, long[] totals);
    }

    /** {@code millis}: the region servers' kind of clock (wall time), not the business clock: cell versions are compared there. */
    WriterTotals(int maxRows, LongSupplier ids, LongSupplier millis) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1: " + maxRows);
        }
        this.maxRows = maxRows;
        this.ids = ids;
        this.millis = millis;
        this.slotIds[0] = ids.getAsLong();
        this.next = ids.getAsLong();
    }

    /**
     * Starts a flush that adds at most {@code rows} rows (starting over first when they might not
     * fit) and returns the timestamp its Puts carry.
     */
    long begin(int rows) {
        return begin(rows, prepare(rows));
    }

    /**
     * As {@link #begin(int)}, with the start-over {@link #prepare} built for this flush (null when
     * none was due). The flusher prepares it outside its live lock and begins under it, so a live
     * read never waits for the copy of the kept rows.
     */
    long begin(int rows, StartOver prepared) {
        // Prepared here only when the caller did not (the flusher always does: it is the only writer).
        StartOver s = prepared != null ? prepared : due(rows) ? prepare(rows) : null;
        if (s != null) {
            peakBytes = Math.max(peakBytes, bytes(totals) + bytes(s.tables)); // the old tables and the new at once
            install(s);
        }
        flushes++;
        lastTimestamp = Math.max(millis.getAsLong(), lastTimestamp + 1);
        return lastTimestamp;
    }

    private boolean due(int rows) {
        return size + rows > maxRows && size > 0;
    }

    /**
     * A start-over built but not yet in place: the kept rows' new tables, the rows per slot, how
     * many were kept, and the slot of the new current id.
     */
    record StartOver(CellSums[] tables, int[] slotRows, int kept, int slot) {
    }

    /**
     * The start-over a flush of {@code rows} rows needs, or null when they fit: a new current id;
     * the most recently touched rows kept under their ids (at most {@link #KEEP_FRACTION} of the
     * bound; among rows last touched by the same flush, those remembered longest first), the others
     * forgotten; the rows of the oldest id forgotten too when no slot is free. Reads the remembered
     * rows and changes nothing (live reads may read them meanwhile); {@link #begin(int, StartOver)}
     * puts it in place.
     */
    StartOver prepare(int rows) {
        if (!due(rows)) {
            return null;
        }
        // Not reduced by the flush to come: a back-fill's flush of a full buffer holds as many rows as
        // the bound or more (2M cells, 500,000 rows), and leaving room for all of them kept nothing.
        // The totals then hold at most half the bound plus one flush's rows, as they held one flush's before.
        int keep = (int) (maxRows * KEEP_FRACTION);
        long[] cut = recent(keep); // rows ranked above cut[0] are kept, and cut[1] of those ranked at it
        int free = -1;
        for (int s = 0; s < MAX_IDS && free < 0; s++) {
            if (slotIds[s] == 0) {
                free = s;
            }
        }
        int oldest = -1;
        if (free < 0) { // every slot in use: the oldest id's rows go as well
            for (int s = 0; s < MAX_IDS; s++) {
                if (oldest < 0 || slotDrawn[s] < slotDrawn[oldest]) {
                    oldest = s;
                }
            }
            free = oldest;
        }
        int dropSlot = oldest;
        int[] perSlot = new int[MAX_IDS];
        CellSums[] fresh = new CellSums[totals.length];
        int kept = 0;
        int[] all = new int[columns + EXTRA];
        for (int c = 0; c < all.length; c++) {
            all[c] = c;
        }
        long[] values = new long[columns + EXTRA];
        for (int t = 0; t < totals.length; t++) {
            CellSums old = totals[t];
            if (old == null) {
                continue;
            }
            CellSums into = new CellSums(columns + EXTRA, TABLE_ROWS);
            int[] counted = {0};
            try {
                old.visit((table, key, keyLength, touched, sums, offset) -> {
                    int s = (int) sums[offset + slot];
                    long rank = recency(sums, offset);
                    boolean recent = rank > cut[0] || rank == cut[0] && cut[1]-- > 0; // at most keep rows in all
                    if (recent && s != dropSlot) {
                        System.arraycopy(sums, offset, values, 0, values.length);
                        into.addRow(table, key, keyLength, all, values, values.length);
                        perSlot[s]++;
                        counted[0]++;
                    }
                });
            } catch (java.io.IOException | InterruptedException e) {
                throw new IllegalStateException("copying the totals cannot fail", e); // the visitor throws neither
            }
            kept += counted[0];
            fresh[t] = into;
        }
        return new StartOver(fresh, perSlot, kept, free);
    }

    private void install(StartOver s) {
        totals = s.tables;
        for (int i = 0; i < MAX_IDS; i++) {
            if (s.slotRows[i] == 0) { // no row kept under it: the id is gone
                slotIds[i] = 0;
            }
        }
        current = s.slot;
        slotIds[current] = next;
        slotDrawn[current] = startsOver + 1;
        next = ids.getAsLong();
        size = s.kept;
        startsOver++;
    }

    /**
     * A row's rank for keeping: the flush that last touched it, then how long it has been
     * remembered (a back-fill's flush of a full buffer touches more rows than are kept, and among
     * them the rows remembered longest are the ones touched again and again).
     */
    private long recency(long[] sums, int offset) {
        long last = sums[offset + seen];
        return last << 24 | Math.min(last - sums[offset + born], (1 << 24) - 1);
    }

    /**
     * Which rows are the {@code keep} of highest {@link #recency}: {rank r, n}, meaning every row
     * ranked above r and {@code n} of those ranked r.
     */
    private long[] recent(int keep) {
        if (keep == 0) {
            return new long[] {Long.MAX_VALUE, 0};
        }
        long[] last = new long[size];
        int n = 0;
        for (CellSums t : totals) {
            if (t == null) {
                continue;
            }
            try {
                int[] at = {n};
                t.visit((table, key, keyLength, touched, sums, offset) -> last[at[0]++] = recency(sums, offset));
                n = at[0];
            } catch (java.io.IOException | InterruptedException e) {
                throw new IllegalStateException("visiting the totals cannot fail", e);
            }
        }
        if (n <= keep) {
            return new long[] {Long.MIN_VALUE, 0};
        }
        Arrays.sort(last, 0, n);
        long f = last[n - keep]; // the keep-th most recent
        int after = 0;
        for (int i = n - 1; i >= 0 && last[i] > f; i--) {
            after++;
        }
        return new long[] {f, keep - after};
    }

    /** The current writer id: the id of rows added from now on (changes only in {@link #begin}). */
    long writer() {
        return slotIds[current];
    }

    /** The other writer ids under which remembered rows are written (changes only in {@link #begin}). */
    long[] retained() {
        int n = 0;
        for (int s = 0; s < MAX_IDS; s++) {
            if (s != current && slotIds[s] != 0) {
                n++;
            }
        }
        long[] r = new long[n];
        n = 0;
        for (int s = 0; s < MAX_IDS; s++) {
            if (s != current && slotIds[s] != 0) {
                r[n++] = slotIds[s];
            }
        }
        return r;
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

    /** Heap bytes of the tables' arrays once the last flush's rows were in ({@link CellSums#bytes}). */
    long bytes() {
        return bytes;
    }

    /** Measures {@link #bytes} again once a flush's rows are in (the flush thread, after its last {@link #add}). */
    void measure() {
        bytes = bytes(totals);
        peakBytes = Math.max(peakBytes, bytes);
    }

    /** The most {@link #bytes} has been, counting a start-over's new tables beside the old ones it replaces. */
    long peakBytes() {
        return peakBytes;
    }

    private static long bytes(CellSums[] tables) {
        long b = 0;
        for (CellSums t : tables) {
            b += t == null ? 0 : t.bytes();
        }
        return b;
    }

    /**
     * Adds a drained row's deltas to its totals and returns them, one slot per column (a reused
     * array: read it before the next call); {@link #lastWriter} is then the id its cells go under.
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
            table.set(record, day, rc.epochDay());
            table.set(record, slot, current);
            table.set(record, born, flushes);
            size++;
        }
        table.set(record, seen, flushes);
        for (int c = 0; c < columns; c++) {
            out[c] = table.sum(record, c);
        }
        lastWriter = slotIds[(int) table.sum(record, slot)];
        return out;
    }

    /** The writer id of the row {@link #add} handed out last. */
    long lastWriter() {
        return lastWriter;
    }

    private CellSums table(int index, int columns) {
        if (this.columns != columns) {
            if (this.columns >= 0) {
                throw new IllegalStateException("one column count per writer: " + this.columns + ", then " + columns);
            }
            this.columns = columns;
            this.day = columns;
            this.slot = columns + 1;
            this.seen = columns + 2;
            this.born = columns + 3;
            columnIndexes = new int[columns];
            deltas = new long[columns];
            out = new long[columns];
        }
        if (index >= totals.length) {
            totals = Arrays.copyOf(totals, index + 1);
        }
        if (totals[index] == null) {
            totals[index] = new CellSums(columns + EXTRA, TABLE_ROWS); // + the epoch day, the id's slot, the last and first flush
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
            visitor.row(table, row, (int) t.sum(record, day), slotIds[(int) t.sum(record, slot)], out);
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
                visitor.row(tableIndex, Arrays.copyOf(key, keyLength), (int) sums[offset + day], slotIds[(int) sums[offset + slot]], out);
            });
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException("visiting the totals cannot fail", e); // the visitor throws neither
        }
    }
}
