package io.adreport.schema.profile;

import io.adreport.schema.table.TableLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Layout of family {@code seg} of the profiles table: audience segments of a device, loaded
 * nightly by {@code bin/adreport segments load}. Qualifier = segment id (UTF-8), value = score as
 * an 8-byte IEEE double; family TTL {@value #TTL_DAYS} days, so a segment not refreshed by a
 * load expires by itself.
 */
public final class Segments {
    public static final int TTL_DAYS = TableLayout.SEGMENT_TTL_DAYS;
    public static final int MAX_ID_LENGTH = 64;

    private Segments() {
    }

    public static byte[] qualifier(String segment) {
        if (segment == null || segment.isEmpty() || segment.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("segment must be 1.." + MAX_ID_LENGTH + " characters");
        }
        return segment.getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] value(double score) {
        if (!Double.isFinite(score)) {
            throw new IllegalArgumentException("score must be a finite number");
        }
        return ByteBuffer.allocate(8).putDouble(score).array();
    }

    public static String segment(byte[] q, int off, int len) {
        return new String(q, off, len, StandardCharsets.UTF_8);
    }

    public static double score(byte[] v, int off, int len) {
        return len == 8 ? ByteBuffer.wrap(v, off, 8).getDouble() : Double.NaN;
    }
}
