package io.adreport.reconcile.job;

import java.util.Arrays;

/**
 * Map output key of one counter row: {@code rollup index (1 byte) ‖ counter row key}. The row's
 * metric cells travel together in one {@link RowCells} value, so the shuffle sorts one record per
 * counter row, not one per cell.
 *
 * <p>Plain byte order of these keys is the order (rollup, row). {@link StoredCells} reads the
 * stored rows in that same order (rollup by rollup, then the day ranges of each owned salt bucket
 * and granularity in row order), which is what lets {@link CellReducer} merge them with the
 * shuffled keys instead of shuffling them. Equal rows have equal bytes.
 */
final class RowKeys {
    private RowKeys() {
    }

    static byte[] encode(int rollup, byte[] row) {
        return encode(rollup, row, row.length);
    }

    /** The key of the row in {@code row[0, length)}. */
    static byte[] encode(int rollup, byte[] row, int length) {
        if (rollup < 0 || rollup > 255 || length == 0) {
            throw new IllegalArgumentException("row out of range: rollup " + rollup + ", row of " + length + " bytes");
        }
        byte[] out = new byte[length + 1];
        out[0] = (byte) rollup;
        System.arraycopy(row, 0, out, 1, length);
        return out;
    }

    static int rollup(byte[] b, int off) {
        return b[off] & 0xFF;
    }

    /** Salt bucket of the counter row (the row key's first byte). */
    static int salt(byte[] b, int off) {
        return b[off + 1] & 0xFF;
    }

    static byte[] row(byte[] b, int off, int length) {
        return Arrays.copyOfRange(b, off + 1, off + length);
    }
}
