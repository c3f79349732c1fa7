package io.adreport.aggregator.coalesce;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The buffered deltas of one counter row in a {@link CoalescingBuffer}, one slot per metric
 * column. Concurrency: adders sum into the slots with atomic adds and mark the columns they
 * touched; the flusher reads a row only after the buffer has swapped its generation out.
 */
public final class RowCells {
    private final int table;
    private final byte[] row;
    private final int epochDay;
    private final AtomicLongArray deltas;
    private final AtomicInteger touched = new AtomicInteger();

    RowCells(int table, byte[] row, int epochDay, int columns) {
        this.table = table;
        this.row = row;
        this.epochDay = epochDay;
        this.deltas = new AtomicLongArray(columns);
    }

    /** @return true when this column was untouched before (a new distinct cell) */
    boolean add(int column, long delta) {
        deltas.addAndGet(column, delta);
        int bit = 1 << column;
        int seen = touched.get();
        while ((seen & bit) == 0) {
            if (touched.compareAndSet(seen, seen | bit)) {
                return true;
            }
            seen = touched.get();
        }
        return false;
    }

    public int table() {
        return table;
    }

    public byte[] row() {
        return row;
    }

    /** UTC epoch day of the row's time bucket. */
    public int epochDay() {
        return epochDay;
    }

    /** Bit {@code i} set when column {@code i} received a delta. */
    public int touchedColumns() {
        return touched.get();
    }

    public long delta(int column) {
        return deltas.get(column);
    }

    /** Distinct cells in this row. */
    public int cellCount() {
        return Integer.bitCount(touched.get());
    }
}
