package io.adreport.schema.trust;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 keyed with a secret, one {@link Mac} per thread (a {@code Mac} is not thread-safe):
 * the keyed hash of device ids ({@code DeviceHasher}) and the beacon signatures ({@link BeaconSigner}).
 */
public final class HmacSha256 {
    private static final String ALGORITHM = "HmacSHA256";

    private HmacSha256() {
    }

    /** A {@code Mac} per thread, each keyed with {@code secret} (read when a thread first asks: do not change it). */
    public static ThreadLocal<Mac> perThread(byte[] secret) {
        return ThreadLocal.withInitial(() -> {
            try {
                Mac m = Mac.getInstance(ALGORITHM);
                m.init(new SecretKeySpec(secret, ALGORITHM));
                return m;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(ALGORITHM + " unavailable", e);
            }
        });
    }
}
