package io.adreport.reconcile.job;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * What the job knows about the metric cells of one counter row, by column index (at most 64, as
 * {@link io.adreport.schema.counting.CellSums} checks): the expected values summed from events so far (a bit per column that
 * received a delta; a sum may be 0), and the stored cells when the row was read (value and
 * timestamp, or damaged: its bytes are not an 8-byte long). Expected parts of one row add up; a
 * row is stored once, so at most one part carries stored cells.
 *
 * <p>A stored metric may be several cells ({@code CounterValues}): its base cell and the live
 * writers' cells. The stored value is their sum, the timestamp the newest of them, and the writer
 * cells' qualifiers are kept ({@link #writerQualifiers}) so that a correction can fold them into
 * the base cell (delete them, write the exact value to the base cell).
 *
 * <p>Serialized form (the shuffle): {@code vlong mask ‖ vlong value per set bit, lowest first}.
 * Only expected values cross the shuffle; stored cells are read by the reduce task itself
 * ({@link StoredCells}) and writing a value that holds any is a bug. Instances are reused:
 * {@link #clear} resets only the columns in use.
 */
public final class RowCells implements Writable {
    private static final int MAX_COLUMNS = 64;

    private long expectedMask;
    private long storedMask;
    private long damagedMask;
    private final long[] expected = new long[MAX_COLUMNS];
    private final long[] stored = new long[MAX_COLUMNS];
    private final long[] timestamps = new long[MAX_COLUMNS];
    private final List<WriterCell> writers = new ArrayList<>();
    private boolean foreign; // the stored row holds a cell outside the cube's metrics

    /** A stored writer cell of {@code column}. */
    private record WriterCell(int column, byte[] qualifier) {
    }

    public RowCells() {
    }

    void clear() {
        for (long m = expectedMask; m != 0; m &= m - 1) {
            expected[Long.numberOfTrailingZeros(m)] = 0;
        }
        for (long m = storedMask; m != 0; m &= m - 1) {
            int c = Long.numberOfTrailingZeros(m);
            stored[c] = 0;
            timestamps[c] = 0;
        }
        expectedMask = 0;
        storedMask = 0;
        damagedMask = 0;
        writers.clear();
        foreign = false;
    }

    /** The stored row holds a cell that is no metric of the cube (left untouched by the job). */
    void markForeign() {
        foreign = true;
    }

    boolean foreign() {
        return foreign;
    }

    /** Adds {@code delta} to the expected value of {@code column} (and marks it touched). */
    void addExpected(int column, long delta) {
        expected[column] += delta;
        expectedMask |= 1L << column;
    }

    /** Adds one stored cell of {@code column}; {@code writerQualifier} is null for the base cell. */
    void addStored(int column, long value, long timestamp, byte[] writerQualifier) {
        stored[column] += value;
        addCell(column, timestamp, writerQualifier);
    }

    /** A stored cell whose bytes are not an 8-byte long: the column exists, and no value of it is right. */
    void addDamaged(int column, long timestamp, byte[] writerQualifier) {
        addCell(column, timestamp, writerQualifier);
        damagedMask |= 1L << column;
    }

    private void addCell(int column, long timestamp, byte[] writerQualifier) {
        timestamps[column] = (storedMask & (1L << column)) == 0 ? timestamp : Math.max(timestamps[column], timestamp);
        storedMask |= 1L << column;
        if (writerQualifier != null) {
            writers.add(new WriterCell(column, writerQualifier));
        }
    }

    /** How many stored writer cells {@code column} has. */
    int writerCells(int column) {
        int n = 0;
        for (WriterCell w : writers) {
            n += w.column() == column ? 1 : 0;
        }
        return n;
    }

    /** The qualifiers of the stored writer cells of {@code column} (none for most rows). */
    List<byte[]> writerQualifiers(int column) {
        if (writers.isEmpty()) {
            return List.of();
        }
        List<byte[]> out = new ArrayList<>(2);
        for (WriterCell w : writers) {
            if (w.column() == column) {
                out.add(w.qualifier());
            }
        }
        return out;
    }

    /** Adds the expected parts of {@code other} and takes its stored cells. */
    void merge(RowCells other) {
        for (long m = other.expectedMask; m != 0; m &= m - 1) {
            int c = Long.numberOfTrailingZeros(m);
            expected[c] += other.expected[c];
        }
        expectedMask |= other.expectedMask;
        for (long m = other.storedMask; m != 0; m &= m - 1) {
            int c = Long.numberOfTrailingZeros(m);
            stored[c] = other.stored[c];
            timestamps[c] = other.timestamps[c];
        }
        storedMask |= other.storedMask;
        damagedMask = (damagedMask & ~other.storedMask) | other.damagedMask;
        writers.addAll(other.writers);
        foreign |= other.foreign;
    }

    /** Columns that have an expected value or a stored cell: the row's cells to check. */
    long columns() {
        return expectedMask | storedMask;
    }

    long expected(int column) {
        return expected[column];
    }

    /** The stored value (the sum of the column's cells); 0 when no cell exists; not meaningful when damaged. */
    long stored(int column) {
        return stored[column];
    }

    /** Timestamp of the newest stored cell of the column (0 when none). */
    long timestamp(int column) {
        return timestamps[column];
    }

    boolean exists(int column) {
        return (storedMask & (1L << column)) != 0;
    }

    boolean damaged(int column) {
        return (damagedMask & (1L << column)) != 0;
    }

    @Override
    public void write(DataOutput out) throws IOException {
        if (storedMask != 0) {
            throw new IllegalStateException("stored cells never cross the shuffle: the reduce task reads them itself");
        }
        WritableUtils.writeVLong(out, expectedMask);
        for (long m = expectedMask; m != 0; m &= m - 1) {
            WritableUtils.writeVLong(out, expected[Long.numberOfTrailingZeros(m)]);
        }
    }

    @Override
    public void readFields(DataInput in) throws IOException {
        clear();
        expectedMask = WritableUtils.readVLong(in);
        for (long m = expectedMask; m != 0; m &= m - 1) {
            expected[Long.numberOfTrailingZeros(m)] = WritableUtils.readVLong(in);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RowCells[");
        for (long m = columns(); m != 0; m &= m - 1) {
            int c = Long.numberOfTrailingZeros(m);
            sb.append(c).append(": expected=").append(expected[c])
                    .append(exists(c) ? damaged(c) ? " stored=damaged" : " stored=" + stored[c] : " stored=none").append(m == Long.lowestOneBit(m) ? "" : ", ");
        }
        return sb.append(']').toString();
    }
}
