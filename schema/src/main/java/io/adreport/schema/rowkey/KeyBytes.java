package io.adreport.schema.rowkey;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The byte-level encodings every frozen key layout shares (counter and raw keys in
 * {@link RowKeyCodec}, ranked-index keys in {@code schema.topn.RankedIndexCodec}): unsigned
 * 32-bit big-endian integers and 0x00-terminated UTF-8 values.
 */
public final class KeyBytes {
    private KeyBytes() {
    }

    public static void writeUint32(ByteArrayOutputStream out, long v) {
        checkUint32(v);
        out.write((int) (v >>> 24));
        out.write((int) (v >>> 16));
        out.write((int) (v >>> 8));
        out.write((int) v);
    }

    /** {@link #writeUint32} into {@code b} at {@code off}, for a key built in place. */
    public static void putUint32(byte[] b, int off, long v) {
        checkUint32(v);
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    private static void checkUint32(long v) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("value out of unsigned 32-bit range: " + v);
        }
    }

    public static long readUint32(byte[] b, int off) {
        return ((long) (b[off] & 0xFF) << 24) | ((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF);
    }

    /** {@code v} as UTF-8 and a 0x00 terminator; values holding 0x00 are refused. */
    public static void writeTerminated(ByteArrayOutputStream out, String v) {
        byte[] bytes = utf8(v);
        out.writeBytes(bytes);
        out.write(0);
    }

    /**
     * The values as {@link #writeTerminated} writes them one after the other, in an array of
     * exactly their length ({@link #putTerminated} into a buffer of the largest length, then cut).
     * The counting paths build keys in place instead; this is for keys built one at a time.
     */
    public static byte[] terminated(List<String> values) {
        int max = 0;
        for (String v : values) {
            max += maxTerminated(v);
        }
        byte[] out = new byte[max];
        int off = 0;
        for (String v : values) {
            off = putTerminated(out, off, v);
        }
        return Arrays.copyOf(out, off);
    }

    /**
     * Writes {@code v} as {@link #writeTerminated} does into {@code out} at {@code off}; returns
     * the offset after its 0x00. {@code out} must have room for {@link #maxTerminated}{@code (v)}
     * bytes from {@code off}. Allocates only for a non-ASCII value.
     */
    public static int putTerminated(byte[] out, int off, String v) {
        if (ascii(v)) {
            for (int c = 0; c < v.length(); c++) {
                out[off++] = (byte) v.charAt(c);
            }
        } else {
            byte[] bytes = utf8(v);
            System.arraycopy(bytes, 0, out, off, bytes.length);
            off += bytes.length;
        }
        out[off++] = 0;
        return off;
    }

    /** The most bytes {@link #putTerminated} writes for {@code v}: three per char and the 0x00. */
    public static int maxTerminated(String v) {
        return 3 * v.length() + 1;
    }

    /** Every char of {@code v} is ASCII (one UTF-8 byte); a 0x00 char is refused. */
    private static boolean ascii(String v) {
        for (int c = 0; c < v.length(); c++) {
            char ch = v.charAt(c);
            if (ch == 0) {
                throw new IllegalArgumentException("key values must not contain 0x00");
            }
            if (ch >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** {@code v} as UTF-8; values holding 0x00 are refused. */
    private static byte[] utf8(String v) {
        byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            if (b == 0) {
                throw new IllegalArgumentException("key values must not contain 0x00");
            }
        }
        return bytes;
    }
}
