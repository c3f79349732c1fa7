package io.adreport.schema.profile;

import java.util.HexFormat;

/**
 * Row key of the profiles table: one row per device, fixed width {@value #LENGTH} bytes =
 * a salt byte ({@code hash[0] mod buckets}) + the 32 bytes of the device's keyed hash
 * (HMAC-SHA256, {@link io.adreport.schema.event.DeviceHasher}). The hash is uniform, so the salt
 * only names the pre-split region the row lives in; {@code buckets} is the cube's
 * {@code saltBuckets}, frozen with the table version like every salted key. The raw device id is
 * never part of a key.
 */
public final class ProfileKey {
    public static final int HASH_BYTES = 32;
    public static final int LENGTH = 1 + HASH_BYTES;

    private final int buckets;

    public ProfileKey(int buckets) {
        if (buckets < 1 || buckets > 256) {
            throw new IllegalArgumentException("salt buckets must be 1..256");
        }
        this.buckets = buckets;
    }

    /**
     * The row of the device whose keyed hash is {@code hashHex} (64 hex digits).
     *
     * @throws IllegalArgumentException for anything else
     */
    public byte[] row(String hashHex) {
        if (hashHex == null || hashHex.length() != 2 * HASH_BYTES) {
            throw new IllegalArgumentException("device hash must be " + 2 * HASH_BYTES + " hex digits");
        }
        byte[] hash = HexFormat.of().parseHex(hashHex);
        byte[] row = new byte[LENGTH];
        row[0] = (byte) ((hash[0] & 0xFF) % buckets);
        System.arraycopy(hash, 0, row, 1, HASH_BYTES);
        return row;
    }

    /** The device hash (hex) of a row. */
    public static String hashOf(byte[] row) {
        return HexFormat.of().formatHex(row, 1, LENGTH);
    }
}
