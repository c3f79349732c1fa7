package io.adreport.reconcile.job;

import java.util.Arrays;

/**
 * A map task's in-memory sums of expected deltas, keyed by counter row and summed per metric
 * column in primitive arrays: one slot per distinct (table, row key), {@code columns} longs per
 * slot. Adding a delta allocates nothing (the row key array is kept by reference when its row is
 * new); the cell keys of the shuffle are built only when the sums are drained.
 *
 * <p>Open addressing with linear probing over a power-of-two table kept at most half full;
 * {@link #full} tells the owner to drain before the row bound is passed. One task thread owns it.
 */
final class CellSums {

    /** Receives one summed cell when draining. */
    @FunctionalInterface
    interface Drain {
        void cell(int table, byte[] row, int column, long sum) throws java.io.IOException, InterruptedException;
    }

    private final int columns;
    private final int maxRows;
    private final int[] index;    // slot + 1 per hash bucket; 0 = free
    private final int mask;
    private final byte[][] rows;
    private final int[] tables;
    private final int[] hashes;
    private final long[] sums;
    private final long[] touched; // bit per column: the cell received a delta (a sum may be 0)
    private int size;

    CellSums(int columns, int maxRows) {
        if (columns > 64) {
            throw new IllegalArgumentException("at most 64 metrics per cube, got " + columns);
        }
        this.columns = columns;
        this.maxRows = maxRows;
        int buckets = Integer.highestOneBit(Math.max(16, maxRows) * 2 - 1) << 1;
        this.index = new int[buckets];
        this.mask = buckets - 1;
        this.rows = new byte[maxRows][];
        this.tables = new int[maxRows];
        this.hashes = new int[maxRows];
        this.sums = new long[maxRows * columns];
        this.touched = new long[maxRows];
    }

    /** Adds {@code delta} to cell (table, row, column); the caller drains first when {@link #full}. */
    void add(int table, byte[] row, int column, long delta) {
        int h = Arrays.hashCode(row) * 31 + table;
        int b = (h ^ (h >>> 16)) & mask;
        while (true) {
            int slot = index[b] - 1;
            if (slot < 0) {
                slot = size++;
                index[b] = slot + 1;
                rows[slot] = row;
                tables[slot] = table;
                hashes[slot] = h;
                sums[slot * columns + column] = delta;
                touched[slot] = 1L << column;
                return;
            }
            if (hashes[slot] == h && tables[slot] == table && Arrays.equals(rows[slot], row)) {
                sums[slot * columns + column] += delta;
                touched[slot] |= 1L << column;
                return;
            }
            b = (b + 1) & mask;
        }
    }

    boolean full() {
        return size >= maxRows;
    }

    int rows() {
        return size;
    }

    /** Hands every touched cell to {@code out} and empties the sums. */
    void drain(Drain out) throws java.io.IOException, InterruptedException {
        for (int slot = 0; slot < size; slot++) {
            long t = touched[slot];
            for (int c = 0; c < columns; c++) {
                if ((t & (1L << c)) != 0) {
                    out.cell(tables[slot], rows[slot], c, sums[slot * columns + c]);
                }
            }
            rows[slot] = null;
        }
        Arrays.fill(index, 0);
        Arrays.fill(sums, 0, size * columns, 0L);
        size = 0;
    }
}
