package io.adreport.schema.rowkey;

import java.util.Arrays;

/** A scan range: rows from {@code start} (inclusive) to {@code stop} (exclusive). */
public record KeyRange(byte[] start, byte[] stop) {
    public KeyRange {
        start = start.clone();
        stop = stop.clone();
    }

    public boolean contains(byte[] row) {
        return Arrays.compareUnsigned(row, start) >= 0 && Arrays.compareUnsigned(row, stop) < 0;
    }

    @Override
    public byte[] start() {
        return start.clone();
    }

    @Override
    public byte[] stop() {
        return stop.clone();
    }
}
