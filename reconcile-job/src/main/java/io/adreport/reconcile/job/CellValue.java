package io.adreport.reconcile.job;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * What the job knows about one counter cell: the expected value summed from events so far, and
 * the stored value when the cell's row was read. Values of one cell merge by adding the expected
 * parts; a cell is stored in one row only, so at most one part carries a stored value.
 *
 * <p>The stored cell's timestamp is kept for the bulk-load path (a correction must be newer than
 * the cell it replaces) but not serialized: stored values never cross the shuffle, they are read
 * by the reduce task itself ({@link StoredCells}).
 */
public final class CellValue implements Writable {
    private static final int STORED = 1;
    private static final int DAMAGED = 2;

    private long expected;
    private long stored;
    private long timestamp;
    private int flags;

    public CellValue() {
    }

    static CellValue expected(long delta) {
        CellValue v = new CellValue();
        v.expected = delta;
        return v;
    }

    static CellValue stored(long value, long timestamp) {
        CellValue v = new CellValue();
        v.stored = value;
        v.timestamp = timestamp;
        v.flags = STORED;
        return v;
    }

    /** A stored cell whose bytes are not an 8-byte long: it exists, and no value is right. */
    static CellValue damagedCell(long timestamp) {
        CellValue v = new CellValue();
        v.timestamp = timestamp;
        v.flags = STORED | DAMAGED;
        return v;
    }

    void clear() {
        expected = 0;
        stored = 0;
        timestamp = 0;
        flags = 0;
    }

    void addExpected(long delta) {
        expected += delta;
    }

    void merge(CellValue other) {
        expected += other.expected;
        if ((other.flags & STORED) != 0) {
            stored = other.stored;
            timestamp = other.timestamp;
        }
        flags |= other.flags;
    }

    long expected() {
        return expected;
    }

    /** The stored value; 0 when the cell does not exist or is damaged. */
    long stored() {
        return damaged() ? 0 : stored;
    }

    /** Timestamp of the stored cell (0 when none). */
    long timestamp() {
        return timestamp;
    }

    boolean exists() {
        return (flags & STORED) != 0;
    }

    boolean damaged() {
        return (flags & DAMAGED) != 0;
    }

    @Override
    public void write(DataOutput out) throws IOException {
        WritableUtils.writeVLong(out, expected);
        WritableUtils.writeVLong(out, stored);
        out.writeByte(flags);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
        expected = WritableUtils.readVLong(in);
        stored = WritableUtils.readVLong(in);
        flags = in.readByte();
    }

    @Override
    public String toString() {
        return "expected=" + expected + (exists() ? damaged() ? " stored=damaged" : " stored=" + stored : " stored=none");
    }
}
