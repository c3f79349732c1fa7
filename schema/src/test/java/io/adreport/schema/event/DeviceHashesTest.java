package io.adreport.schema.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.ProfileModel;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which hashes name a device during a secret rotation, and what an event ingested meanwhile carries. */
class DeviceHashesTest {
    private static final byte[] OLD = "0123456789abcdef-old-secret".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NEW = "0123456789abcdef-new-secret".getBytes(StandardCharsets.UTF_8);
    private static final String ID = "6F1C0E2A-8B3D-4C5E-9F7A-1B2C3D4E5F60";
    private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

    @Test
    void writes_use_the_current_secret_and_reads_see_current_first_then_previous() {
        DeviceHashes rotating = DeviceHashes.of(NEW, OLD);
        String current = new DeviceHasher(NEW).hash(ID);
        String previous = new DeviceHasher(OLD).hash(ID);
        assertTrue(rotating.rotating());
        assertEquals(current, rotating.current(ID));
        assertEquals(previous, rotating.previous(ID));
        assertEquals(List.of(current, previous), rotating.all(ID));
        assertEquals(List.of(current, previous), rotating.all(" " + ID.toLowerCase() + " "), "the canonical spelling under both secrets");
    }

    @Test
    void without_a_previous_secret_or_with_the_same_one_there_is_one_hash() {
        for (DeviceHashes one : List.of(DeviceHashes.of(NEW, null), DeviceHashes.of(NEW, new byte[0]), DeviceHashes.of(NEW, NEW.clone()))) {
            assertFalse(one.rotating());
            assertNull(one.previous(ID));
            assertEquals(List.of(new DeviceHasher(NEW).hash(ID)), one.all(ID));
        }
    }

    @Test
    void an_event_parsed_while_rotating_carries_its_previous_hash_outside_its_content_id() throws Exception {
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
        String json = "{\"type\":\"impression\",\"id\":\"imp-1\",\"ts\":\"" + NOW + "\",\"device\":\"" + ID + "\",\"advertiser\":\"a\","
                + "\"campaign\":\"c\",\"creative\":\"cr\",\"publisher\":\"p\",\"zone\":\"z\",\"country\":\"US\",\"deviceType\":\"phone\"}";
        var node = new ObjectMapper().readTree(json);
        Event rotating = new EventParser(CubeLoader.defaultCube(), clock, Duration.ofDays(7), DeviceHashes.of(NEW, OLD)).parse(node);
        Event plain = new EventParser(CubeLoader.defaultCube(), clock, Duration.ofDays(7), new DeviceHasher(NEW)).parse(node);
        assertEquals(Map.of(ProfileModel.DEVICE_FIELD, new DeviceHasher(NEW).hash(ID),
                DeviceHashes.formerField(ProfileModel.DEVICE_FIELD), new DeviceHasher(OLD).hash(ID)), rotating.hashed());
        assertEquals(Map.of(ProfileModel.DEVICE_FIELD, new DeviceHasher(NEW).hash(ID)), plain.hashed(), "no extra field without a rotation");
        assertEquals(rotating, RawEventCodec.fromJson(RawEventCodec.toJson(rotating)), "the raw row keeps it");
    }
}
