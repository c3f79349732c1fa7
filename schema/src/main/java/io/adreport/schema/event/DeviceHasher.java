package io.adreport.schema.event;

import io.adreport.schema.trust.HmacSha256;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import javax.crypto.Mac;

/**
 * Keyed hash of device / user ids: HMAC-SHA256(secret, UTF-8 of the id's {@link DeviceId#canonical}
 * spelling), hex encoded, so two spellings of one device are one hash. The secret comes from
 * configuration; without it the hash cannot be reversed by a dictionary of ids.
 * Thread-safe: a {@link Mac} per thread.
 */
public final class DeviceHasher {
    /** Secrets shorter than this are refused: HMAC keys should carry at least 128 bits. */
    public static final int MIN_SECRET_BYTES = 16;

    private final ThreadLocal<Mac> mac;

    public DeviceHasher(byte[] secret) {
        if (secret == null || secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("device hash secret must be at least " + MIN_SECRET_BYTES + " bytes");
        }
        this.mac = HmacSha256.perThread(secret.clone());
    }

    public String hash(String value) {
        return HexFormat.of().formatHex(mac.get().doFinal(DeviceId.canonical(value).getBytes(StandardCharsets.UTF_8)));
    }
}
