package io.adreport.schema.counting;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Counter deltas summed in memory per counter row and metric column, with one record per
 * distinct (table, row key). Adding a row's deltas allocates nothing; a row's key is handed out
 * again only when the sums are drained. Two owners count with it, through
 * {@link CounterCells#forEachRow}: the recount's map task (its share of a day, drained into the
 * shuffle) and the aggregator's raw writers (one group commit, drained into the coalescing
 * buffer).
 *
 * <p>Layout, for the processor's cache: a task's share of a 1M-event day is a million rows or
 * more, far beyond the caches, so every row lookup is a handful of memory misses and the lookups
 * were half of a map task's CPU. A row therefore lives in one place: a record in one {@code long}
 * arena holds its header (hash, table, key length), its touched-column mask, its sums and its key
 * packed into words, and the open-addressing index (linear probing, a power of two kept at most
 * half full) holds the hash beside the record's position, so a probe that meets another row is
 * told apart without leaving the index, and a hit reads the index entry and one record.
 *
 * <p>{@link #addRow} takes all of an event's deltas of one row at once (one hash and probe per
 * row); {@link #add} takes one cell and remembers the record of the last row by the key array's
 * identity, for callers that hand the same array for a row's cells. The arrays start small and
 * double as rows arrive, up to the bound ({@link #full} tells the owner to drain before it is
 * passed): a large bound costs memory only on days that have that many rows. Not thread-safe:
 * one thread owns it.
 */
public final class CellSums {

    /**
     * Receives one summed row when draining: its key in {@code key[0, keyLength)}, the columns that
     * received a delta ({@code touched}, a bit per column index) and their sums at
     * {@code sums[offset + column]}; the arrays are valid during the call only.
     */
    @FunctionalInterface
    public interface Drain {
        void row(int table, byte[] key, int keyLength, long touched, long[] sums, int offset)
                throws java.io.IOException, InterruptedException;
    }

    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int INITIAL_ROWS = 1 << 12;
    private static final int HEADER = 2; // header word (hash 32 | table 16 | key length 16), touched mask

    private final int columns;
    private final int maxRows;
    private long[] index;    // per bucket: hash << 32 | (record position + 1); 0 = free
    private int mask;
    private long[] arena;    // records, one after the other
    private int fill;        // arena words in use
    private int size;        // records
    private long[] words = new long[8]; // the key being added, packed
    private byte[] lastRow;  // the key array of the last add, by identity, and its table and record
    private int lastTable;
    private int lastRecord;

    public CellSums(int columns, int maxRows) {
        if (columns > 64) {
            throw new IllegalArgumentException("at most 64 metrics per cube, got " + columns);
        }
        if (maxRows < 1) {
            throw new IllegalArgumentException("at least one row, got " + maxRows);
        }
        this.columns = columns;
        this.maxRows = maxRows;
        int rows = Math.min(maxRows, INITIAL_ROWS);
        index = new long[buckets(rows)];
        mask = index.length - 1;
        arena = new long[rows * (HEADER + columns + 4)];
    }

    private static int buckets(int rows) {
        return Integer.highestOneBit(Math.max(16, rows) * 2 - 1) << 1;
    }

    /** Adds {@code delta} to cell (table, row, column); the caller drains first when {@link #full}. */
    public void add(int table, byte[] row, int column, long delta) {
        if (row == lastRow && table == lastTable) {
            arena[lastRecord + 1] |= 1L << column;
            arena[lastRecord + HEADER + column] += delta;
            return;
        }
        int p = find(table, row, row.length);
        arena[p + 1] |= 1L << column;
        arena[p + HEADER + column] += delta;
        lastRow = row;
        lastTable = table;
        lastRecord = p;
    }

    /**
     * Adds the deltas {@code deltas[i]} to the columns {@code columns[i]}, {@code i < n}, of the
     * row whose key is {@code key[0, keyLength)} ({@link CounterCells.RowSink}'s terms; the key is
     * copied when the row is new) and returns the row's record position (for {@link #sum}). The
     * caller drains first when {@link #full}.
     */
    public int addRow(int table, byte[] key, int keyLength, int[] columns, long[] deltas, int n) {
        lastRow = null; // the key array is a reused buffer: its identity names no row
        int p = find(table, key, keyLength);
        long touched = arena[p + 1];
        for (int i = 0; i < n; i++) {
            int column = columns[i];
            touched |= 1L << column;
            arena[p + HEADER + column] += deltas[i];
        }
        arena[p + 1] = touched;
        return p;
    }

    /**
     * The record of (table, key[0, keyLength)) without inserting it, or -1 when there is none: for
     * {@link #sum} and {@link #set}. A record's position holds until {@link #clear} or a drain.
     */
    public int record(int table, byte[] key, int keyLength) {
        return lookup(table, key, keyLength, false);
    }

    /** The sum of {@code column} in the record at {@code record} (a position {@link #addRow} or {@link #record} returned). */
    public long sum(int record, int column) {
        return arena[record + HEADER + column];
    }

    /** Sets {@code column} of the record at {@code record} to {@code value} and marks it touched. */
    public void set(int record, int column, long value) {
        arena[record + 1] |= 1L << column;
        arena[record + HEADER + column] = value;
    }

    /** The record of (table, row[0, length)), inserted (zero sums) if new. */
    private int find(int table, byte[] row, int length) {
        return lookup(table, row, length, true);
    }

    /** The record of (table, row[0, length)); if absent, inserted (zero sums) or -1. */
    private int lookup(int table, byte[] row, int length, boolean insert) {
        if (table < 0 || table > 0xFFFF || length > 0xFFFF) {
            throw new IllegalArgumentException("row out of range: table " + table + ", key of " + length + " bytes");
        }
        int n = (length + 7) >>> 3;
        if (words.length < n) {
            words = new long[Math.max(n, 2 * words.length)];
        }
        long hash = 0x9E3779B97F4A7C15L * (table + 1) ^ length;
        for (int w = 0; w < n; w++) {
            long word = word(row, w, length);
            words[w] = word;
            hash = (hash ^ word) * 0xFF51AFD7ED558CCDL;
        }
        hash ^= hash >>> 33;
        int h = (int) (hash ^ (hash >>> 32));
        long head = ((long) h << 32) | ((long) table << 16) | length;
        for (int b = h & mask; ; b = (b + 1) & mask) {
            long entry = index[b];
            if (entry == 0) {
                return insert ? insert(b, head, h, n) : -1;
            }
            if ((int) (entry >>> 32) == h) {
                int p = (int) entry - 1;
                if (arena[p] == head && sameKey(p + HEADER + columns, n)) {
                    return p;
                }
            }
        }
    }

    private boolean sameKey(int at, int n) {
        for (int w = 0; w < n; w++) {
            if (arena[at + w] != words[w]) {
                return false;
            }
        }
        return true;
    }

    private int insert(int bucket, long head, int h, int n) {
        if (size >= maxRows) {
            throw new IllegalStateException("more than " + maxRows + " rows: drain when full()");
        }
        int length = HEADER + columns + n;
        if (fill + length > arena.length) {
            arena = Arrays.copyOf(arena, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(2L * arena.length, fill + length)));
        }
        int p = fill;
        arena[p] = head;
        Arrays.fill(arena, p + 1, p + HEADER + columns, 0L);
        System.arraycopy(words, 0, arena, p + HEADER + columns, n);
        fill += length;
        size++;
        if (2 * size > index.length) {
            rehash(2 * index.length);
        } else {
            index[bucket] = ((long) h << 32) | (p + 1L);
        }
        return p;
    }

    private void rehash(int buckets) {
        index = new long[buckets];
        mask = buckets - 1;
        for (int p = 0; p < fill; p += recordLength(arena[p])) {
            int h = (int) (arena[p] >>> 32);
            int b = h & mask;
            while (index[b] != 0) {
                b = (b + 1) & mask;
            }
            index[b] = ((long) h << 32) | (p + 1L);
        }
    }

    private int recordLength(long head) {
        return HEADER + columns + (((int) (head & 0xFFFF) + 7) >>> 3);
    }

    /** Word {@code w} of the key, big-endian, zero-padded past its end. */
    private static long word(byte[] row, int w, int length) {
        int at = w << 3;
        if (at + 8 <= length) {
            return (long) WORD.get(row, at);
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (at + i < length ? row[at + i] & 0xFF : 0);
        }
        return v;
    }

    public boolean full() {
        return size >= maxRows;
    }

    public int rows() {
        return size;
    }

    /** Heap bytes of its arrays as allocated (index, arena, key words; headers left out): what it holds, used or not. */
    public long bytes() {
        return 8L * ((long) index.length + arena.length + words.length);
    }

    /** Hands every row to {@code out} and empties the sums. */
    public void drain(Drain out) throws java.io.IOException, InterruptedException {
        visit(out);
        clear();
    }

    /** Forgets every row (the arrays keep their size). */
    public void clear() {
        lastRow = null;
        Arrays.fill(index, 0L);
        fill = 0;
        size = 0;
    }

    /** Hands every row to {@code out}, in the order they were first added, and keeps them. */
    public void visit(Drain out) throws java.io.IOException, InterruptedException {
        byte[] key = new byte[64];
        for (int p = 0; p < fill; ) {
            long head = arena[p];
            int length = (int) (head & 0xFFFF);
            int n = (length + 7) >>> 3;
            if (key.length < n << 3) {
                key = new byte[n << 3];
            }
            for (int w = 0; w < n; w++) {
                WORD.set(key, w << 3, arena[p + HEADER + columns + w]);
            }
            out.row((int) (head >>> 16) & 0xFFFF, key, length, arena[p + 1], arena, p + HEADER);
            p += HEADER + columns + n;
        }
    }
}
