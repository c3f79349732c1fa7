package io.adreport.schema.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BeaconSignerTest {
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");
    private static final String TOKEN = "ab".repeat(32);

    private static BeaconSigner signer(String keys, Instant now) {
        return new BeaconSigner(BeaconKeys.parse(keys), Duration.ofHours(1), Clock.fixed(now, ZoneOffset.UTC));
    }

    private static Map<String, List<String>> decode(String query) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String p : query.split("&")) {
            int eq = p.indexOf('=');
            out.computeIfAbsent(URLDecoder.decode(p.substring(0, eq), StandardCharsets.UTF_8), k -> new java.util.ArrayList<>())
                    .add(URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static String impression(BeaconSigner s) {
        return s.query(List.of(Map.entry("type", "impression"), Map.entry("id", "i-1"), Map.entry("ts", Long.toString(T0.toEpochMilli())),
                Map.entry("campaign", "c 1&x"), Map.entry("costMicros", "2000"), Map.entry(BeaconSigner.DEVICE_TOKEN, TOKEN)));
    }

    private static String reason(BeaconSigner.Verdict v) {
        return v.refused() == null ? "ok" : v.refused().label;
    }

    @Test
    void a_signed_beacon_verifies_and_every_change_breaks_it() {
        BeaconSigner s = signer("k2:0123456789abcdef-two,k1:0123456789abcdef-one", T0);
        String q = impression(s);
        BeaconSigner.Verdict ok = s.verify(decode(q), TrustConfig.Mode.REQUIRED);
        assertNull(ok.refused());
        assertTrue(ok.signed());
        assertEquals("c 1&x", ok.fields().get("campaign"));
        assertEquals(TOKEN, ok.deviceToken());
        assertEquals("bad-signature", reason(s.verify(decode(q.replace("costMicros=2000", "costMicros=2000000")), TrustConfig.Mode.REQUIRED)));
        assertEquals("bad-signature", reason(s.verify(decode(q + "&advertiser=x"), TrustConfig.Mode.REQUIRED)));
        assertEquals("bad-signature", reason(s.verify(decode(q.replace(TOKEN, "cd".repeat(32))), TrustConfig.Mode.REQUIRED)));
        assertEquals("unknown-key", reason(s.verify(decode(q.replace("kid=k2", "kid=k9")), TrustConfig.Mode.REQUIRED)));
        assertEquals("repeated-parameter", reason(s.verify(decode(q + "&costMicros=9"), TrustConfig.Mode.REQUIRED)));
        assertEquals("unsigned", reason(s.verify(decode("type=impression&id=x"), TrustConfig.Mode.REQUIRED)));
        assertEquals("ok", reason(s.verify(decode("type=impression&id=x"), TrustConfig.Mode.OPTIONAL)));
        assertEquals("bad-signature", reason(s.verify(decode(q.replace("costMicros=2000", "costMicros=1")), TrustConfig.Mode.OPTIONAL)));
        assertEquals("ok", reason(s.verify(decode(q.replace("costMicros=2000", "costMicros=1")), TrustConfig.Mode.OFF)));
    }

    @Test
    void expiry_and_rotation() {
        String q = impression(signer("k1:0123456789abcdef-one", T0));
        // after rotation, k1 still verifies while listed second; once removed it is unknown
        assertEquals("ok", reason(signer("k2:0123456789abcdef-two,k1:0123456789abcdef-one", T0).verify(decode(q), TrustConfig.Mode.REQUIRED)));
        assertEquals("unknown-key", reason(signer("k2:0123456789abcdef-two", T0).verify(decode(q), TrustConfig.Mode.REQUIRED)));
        assertEquals("expired", reason(signer("k1:0123456789abcdef-one", T0.plus(Duration.ofMinutes(61))).verify(decode(q), TrustConfig.Mode.REQUIRED)));
        assertEquals("future-expiry", reason(signer("k1:0123456789abcdef-one", T0.minus(Duration.ofMinutes(2))).verify(decode(q), TrustConfig.Mode.REQUIRED)));
    }

    private static final BeaconNames ADS = new BeaconNames("type", "ts", "click");

    @Test
    void a_click_appends_its_own_ts_which_must_precede_the_expiry() {
        BeaconSigner s = new BeaconSigner(BeaconKeys.parse("k1:0123456789abcdef-one"), Duration.ofHours(1), ADS, Clock.fixed(T0, ZoneOffset.UTC));
        String click = s.query(List.of(Map.entry("type", "click"), Map.entry("id", "i-1-c"), Map.entry("impressionId", "i-1"),
                Map.entry(BeaconSigner.DEVICE_TOKEN, TOKEN)));
        assertEquals("ok", reason(s.verify(decode(click + "&ts=" + T0.plusSeconds(30).toEpochMilli()), TrustConfig.Mode.REQUIRED)));
        assertEquals("click-after-expiry", reason(s.verify(decode(click + "&ts=" + T0.plus(Duration.ofHours(2)).toEpochMilli()),
                TrustConfig.Mode.REQUIRED)));
    }

    @Test
    void the_ads_cube_names_its_click_and_time_fields() throws Exception {
        assertEquals(ADS, BeaconNames.of(cube(null)));
    }

    /**
     * A cube whose type field is {@code kind}, time field {@code at} and click type {@code tap}: its
     * click beacon verifies with {@code at} appended; {@code ts} is not its time, so an appended
     * {@code ts} breaks the signature; a {@code type=click} beacon is no click of this cube.
     */
    @Test
    void a_cube_with_other_field_names_signs_and_verifies_under_its_own() throws Exception {
        BeaconNames names = BeaconNames.of(cube(Map.of("typeField: type", "typeField: kind", "timeField: ts", "timeField: at",
                "types: [impression, click, conversion]", "types: [impression, tap, conversion]",
                "fromTypes: [click, conversion]", "fromTypes: [tap, conversion]", "eventType: click", "eventType: tap")));
        assertEquals(new BeaconNames("kind", "at", "tap"), names);
        BeaconSigner s = new BeaconSigner(BeaconKeys.parse("k1:0123456789abcdef-one"), Duration.ofHours(1), names, Clock.fixed(T0, ZoneOffset.UTC));
        String tap = s.query(List.of(Map.entry("kind", "tap"), Map.entry("id", "i-1-c"), Map.entry("impressionId", "i-1"),
                Map.entry(BeaconSigner.DEVICE_TOKEN, TOKEN)));
        long in30s = T0.plusSeconds(30).toEpochMilli();
        BeaconSigner.Verdict ok = s.verify(decode(tap + "&at=" + in30s), TrustConfig.Mode.REQUIRED);
        assertEquals("ok", reason(ok));
        assertEquals(Long.toString(in30s), ok.fields().get("at"));
        assertEquals("click-after-expiry", reason(s.verify(decode(tap + "&at=" + T0.plus(Duration.ofHours(2)).toEpochMilli()),
                TrustConfig.Mode.REQUIRED)));
        assertEquals("bad-signature", reason(s.verify(decode(tap + "&ts=" + in30s), TrustConfig.Mode.REQUIRED)));
        String click = s.query(List.of(Map.entry("kind", "click"), Map.entry("id", "i-2-c"), Map.entry(BeaconSigner.DEVICE_TOKEN, TOKEN)));
        assertEquals("bad-signature", reason(s.verify(decode(click + "&at=" + in30s), TrustConfig.Mode.REQUIRED)),
                "type=click is not this cube's click: its time is signed");
    }

    /** The ads cube, with {@code replace}'s texts replaced (null: as shipped). */
    private static io.adreport.schema.cube.Cube cube(Map<String, String> replace) throws java.io.IOException {
        String text;
        try (java.io.InputStream in = io.adreport.schema.cube.CubeLoader.class.getResourceAsStream(io.adreport.schema.cube.CubeLoader.DEFAULT_RESOURCE)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (Map.Entry<String, String> r : (replace == null ? Map.<String, String>of() : replace).entrySet()) {
            assertTrue(text.contains(r.getKey()), r.getKey());
            text = text.replace(r.getKey(), r.getValue());
        }
        return io.adreport.schema.cube.CubeLoader.parse("renamed", text);
    }
}
