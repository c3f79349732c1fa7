package io.adreport.reconcile.job;

import java.util.Arrays;

/**
 * A map task's in-memory sums of expected deltas, keyed by counter row and summed per metric
 * column in primitive arrays: one slot per distinct (table, row key), {@code columns} longs per
 * slot. Adding a delta allocates nothing (the row key array is kept by reference when its row is
 * new); the cell keys of the shuffle are built only when the sums are drained.
 *
 * <p>Open addressing with linear probing over a power-of-two table kept at most half full;
 * {@link #full} tells the owner to drain before the row bound is passed. An event's cells of one
 * row arrive one after the other in the same key array (the fan-out builds a row's key once for
 * its metrics), so the slot of the last row is remembered by the array's identity: the row is
 * hashed and probed once per row, not once per cell. The arrays start small
 * and double as rows arrive, up to the bound: a large bound (so that a task sums its whole share
 * of a day once, and emits each cell once) costs memory only on days that have that many rows.
 * One task thread owns it.
 */
final class CellSums {

    /**
     * Receives one summed row when draining: the columns that received a delta ({@code touched},
     * a bit per column index) and their sums at {@code sums[offset + column]}; valid during the call only.
     */
    @FunctionalInterface
    interface Drain {
        void row(int table, byte[] row, long touched, long[] sums, int offset) throws java.io.IOException, InterruptedException;
    }

    private static final int INITIAL_ROWS = 1 << 12;

    private final int columns;
    private final int maxRows;
    private int[] index;    // slot + 1 per hash bucket; 0 = free
    private int mask;
    private byte[][] rows;
    private int[] tables;
    private int[] hashes;
    private long[] sums;
    private long[] touched; // bit per column: the cell received a delta (a sum may be 0)
    private int size;
    private byte[] lastRow; // the key array of the last add, by identity, and its table and slot
    private int lastTable;
    private int lastSlot;

    CellSums(int columns, int maxRows) {
        if (columns > 64) {
            throw new IllegalArgumentException("at most 64 metrics per cube, got " + columns);
        }
        if (maxRows < 1) {
            throw new IllegalArgumentException("at least one row, got " + maxRows);
        }
        this.columns = columns;
        this.maxRows = maxRows;
        allocate(Math.min(maxRows, INITIAL_ROWS));
    }

    private void allocate(int capacity) {
        int buckets = Integer.highestOneBit(Math.max(16, capacity) * 2 - 1) << 1;
        index = new int[buckets];
        mask = buckets - 1;
        rows = rows == null ? new byte[capacity][] : Arrays.copyOf(rows, capacity);
        tables = tables == null ? new int[capacity] : Arrays.copyOf(tables, capacity);
        hashes = hashes == null ? new int[capacity] : Arrays.copyOf(hashes, capacity);
        sums = sums == null ? new long[capacity * columns] : Arrays.copyOf(sums, capacity * columns);
        touched = touched == null ? new long[capacity] : Arrays.copyOf(touched, capacity);
        for (int slot = 0; slot < size; slot++) {
            int b = bucket(hashes[slot]);
            while (index[b] != 0) {
                b = (b + 1) & mask;
            }
            index[b] = slot + 1;
        }
    }

    /**
     * The bucket of a row hash, after a full avalanche (MurmurHash3's 32-bit finalizer): counter
     * row keys differ mostly in their last bytes, so their {@link Arrays#hashCode} values differ by
     * small amounts, and without the mixing they fall into neighbouring buckets, whose clusters
     * linear probing then walks (half of a map task's samples at 1M events a day).
     */
    private int bucket(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h & mask;
    }

    /** Adds {@code delta} to cell (table, row, column); the caller drains first when {@link #full}. */
    void add(int table, byte[] row, int column, long delta) {
        if (row == lastRow && table == lastTable) {
            sums[lastSlot * columns + column] += delta;
            touched[lastSlot] |= 1L << column;
            return;
        }
        int h = Arrays.hashCode(row) * 31 + table;
        int b = bucket(h);
        while (true) {
            int slot = index[b] - 1;
            if (slot < 0) {
                if (size == tables.length) {
                    allocate((int) Math.min(maxRows, 2L * size)); // full() is checked after each add: size < maxRows here
                    add(table, row, column, delta);
                    return;
                }
                slot = size++;
                index[b] = slot + 1;
                rows[slot] = row;
                tables[slot] = table;
                hashes[slot] = h;
                sums[slot * columns + column] = delta;
                touched[slot] = 1L << column;
                remember(table, row, slot);
                return;
            }
            if (hashes[slot] == h && tables[slot] == table && Arrays.equals(rows[slot], row)) {
                sums[slot * columns + column] += delta;
                touched[slot] |= 1L << column;
                remember(table, row, slot);
                return;
            }
            b = (b + 1) & mask;
        }
    }

    private void remember(int table, byte[] row, int slot) {
        lastRow = row;
        lastTable = table;
        lastSlot = slot;
    }

    boolean full() {
        return size >= maxRows;
    }

    int rows() {
        return size;
    }

    /** Hands every row to {@code out} and empties the sums. */
    void drain(Drain out) throws java.io.IOException, InterruptedException {
        for (int slot = 0; slot < size; slot++) {
            out.row(tables[slot], rows[slot], touched[slot], sums, slot * columns);
            rows[slot] = null;
        }
        lastRow = null;
        Arrays.fill(index, 0);
        Arrays.fill(sums, 0, size * columns, 0L);
        size = 0;
    }
}
