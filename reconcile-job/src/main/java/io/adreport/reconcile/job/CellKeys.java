package io.adreport.reconcile.job;

import java.util.Arrays;

/**
 * Map output key of one counter cell: {@code rollup index (1 byte) ‖ row length (uint16 BE) ‖
 * counter row key ‖ metric qualifier}. Equal cells have equal bytes, which is all the shuffle
 * needs; the row key itself comes from {@code RowKeyCodec} and is only copied here.
 */
final class CellKeys {
    private CellKeys() {
    }

    static byte[] encode(int rollup, byte[] row, byte[] qualifier) {
        if (rollup < 0 || rollup > 255 || row.length > 0xFFFF) {
            throw new IllegalArgumentException("cell out of range: rollup " + rollup + ", row of " + row.length + " bytes");
        }
        byte[] out = new byte[3 + row.length + qualifier.length];
        out[0] = (byte) rollup;
        out[1] = (byte) (row.length >>> 8);
        out[2] = (byte) row.length;
        System.arraycopy(row, 0, out, 3, row.length);
        System.arraycopy(qualifier, 0, out, 3 + row.length, qualifier.length);
        return out;
    }

    static int rollup(byte[] b, int off) {
        return b[off] & 0xFF;
    }

    static byte[] row(byte[] b, int off) {
        int len = ((b[off + 1] & 0xFF) << 8) | (b[off + 2] & 0xFF);
        return Arrays.copyOfRange(b, off + 3, off + 3 + len);
    }

    static byte[] qualifier(byte[] b, int off, int length) {
        int len = ((b[off + 1] & 0xFF) << 8) | (b[off + 2] & 0xFF);
        return Arrays.copyOfRange(b, off + 3 + len, off + length);
    }
}
