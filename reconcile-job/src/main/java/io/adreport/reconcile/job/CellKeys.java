package io.adreport.reconcile.job;

import java.util.Arrays;

/**
 * Map output key of one counter cell: {@code rollup index (1 byte) ‖ counter row key ‖ metric
 * column index (1 byte) ‖ row length (uint16 BE)}.
 *
 * <p>Plain byte order of these keys is the order (rollup, row, column): the row keys of one rollup
 * are prefix-free (fixed header, then the same number of 0x00-terminated values, none holding
 * 0x00 — see {@code RowKeyCodec}), so two different rows differ within the shorter one, before
 * the column byte. {@link StoredCells} reads the stored cells in that same order, which is what
 * lets {@link CellReducer} merge them with the shuffled keys instead of shuffling them. The row
 * length at the end makes the key parseable; equal cells have equal bytes.
 */
final class CellKeys {
    private CellKeys() {
    }

    static byte[] encode(int rollup, byte[] row, int column) {
        if (rollup < 0 || rollup > 255 || column < 0 || column > 255 || row.length > 0xFFFF) {
            throw new IllegalArgumentException("cell out of range: rollup " + rollup + ", column " + column + ", row of " + row.length + " bytes");
        }
        byte[] out = new byte[row.length + 4];
        out[0] = (byte) rollup;
        System.arraycopy(row, 0, out, 1, row.length);
        out[row.length + 1] = (byte) column;
        out[row.length + 2] = (byte) (row.length >>> 8);
        out[row.length + 3] = (byte) row.length;
        return out;
    }

    static int rollup(byte[] b, int off) {
        return b[off] & 0xFF;
    }

    /** Salt bucket of the cell's counter row (the row key's first byte). */
    static int salt(byte[] b, int off) {
        return b[off + 1] & 0xFF;
    }

    static int column(byte[] b, int off, int length) {
        return b[off + length - 3] & 0xFF;
    }

    static byte[] row(byte[] b, int off, int length) {
        int len = ((b[off + length - 2] & 0xFF) << 8) | (b[off + length - 1] & 0xFF);
        return Arrays.copyOfRange(b, off + 1, off + 1 + len);
    }
}
