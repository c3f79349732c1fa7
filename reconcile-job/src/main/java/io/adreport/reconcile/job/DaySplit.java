package io.adreport.reconcile.job;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.InputSplit;

/**
 * One map task's share of a day: a list of key ranges, each in one table. A range's
 * {@code source} is {@link #RAW} for the raw events table or the index of a rollup in the cube.
 */
public final class DaySplit extends InputSplit implements Writable {
    static final int RAW = -1;

    /** A scan range [start, stop) of one table. */
    record Range(int source, String table, byte[] start, byte[] stop) {
    }

    private final List<Range> ranges = new ArrayList<>();

    public DaySplit() {
    }

    DaySplit(List<Range> ranges) {
        this.ranges.addAll(ranges);
    }

    List<Range> ranges() {
        return ranges;
    }

    @Override
    public long getLength() {
        return ranges.size();
    }

    @Override
    public String[] getLocations() {
        return new String[0];
    }

    @Override
    public void write(DataOutput out) throws IOException {
        WritableUtils.writeVInt(out, ranges.size());
        for (Range r : ranges) {
            WritableUtils.writeVInt(out, r.source());
            WritableUtils.writeString(out, r.table());
            WritableUtils.writeCompressedByteArray(out, r.start());
            WritableUtils.writeCompressedByteArray(out, r.stop());
        }
    }

    @Override
    public void readFields(DataInput in) throws IOException {
        ranges.clear();
        int n = WritableUtils.readVInt(in);
        for (int i = 0; i < n; i++) {
            ranges.add(new Range(WritableUtils.readVInt(in), WritableUtils.readString(in),
                    WritableUtils.readCompressedByteArray(in), WritableUtils.readCompressedByteArray(in)));
        }
    }

    @Override
    public String toString() {
        return "DaySplit(" + ranges.size() + " ranges)";
    }
}
