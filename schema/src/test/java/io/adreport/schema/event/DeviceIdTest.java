package io.adreport.schema.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DeviceIdTest {
    private static final DeviceHasher HASHER = new DeviceHasher("0123456789abcdef-device-id".getBytes(StandardCharsets.UTF_8));

    @Test
    void uuid_shaped_ids_are_trimmed_and_lower_cased_others_only_trimmed() {
        assertEquals("6f1c0e2a-8b3d-4c5e-9f7a-1b2c3d4e5f60", DeviceId.normalize(" 6F1C0E2A-8B3D-4C5E-9F7A-1B2C3D4E5F60\t"));
        assertEquals("Cookie-ABC", DeviceId.normalize("  Cookie-ABC "));
        assertEquals("", DeviceId.normalize("   "));
    }

    @Test
    void the_limit_is_checked_after_trimming() {
        assertEquals(DeviceId.MAX_LENGTH, DeviceId.normalize(" " + "x".repeat(DeviceId.MAX_LENGTH) + " ").length());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceId.normalize("x".repeat(DeviceId.MAX_LENGTH + 1)));
        assertEquals(DeviceId.RULE, e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DeviceId.normalize("a\u0001b"));
    }

    @Test
    void the_hasher_hashes_the_canonical_spelling() {
        assertEquals(HASHER.hash("6f1c0e2a-8b3d-4c5e-9f7a-1b2c3d4e5f60"), HASHER.hash("6F1C0E2A-8B3D-4C5E-9F7A-1B2C3D4E5F60 "));
        assertNotEquals(HASHER.hash("Cookie-ABC"), HASHER.hash("cookie-abc"));
    }
}
