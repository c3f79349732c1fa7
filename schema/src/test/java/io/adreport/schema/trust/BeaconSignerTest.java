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

    @Test
    void a_click_appends_its_own_ts_which_must_precede_the_expiry() {
        BeaconSigner s = signer("k1:0123456789abcdef-one", T0);
        String click = s.query(List.of(Map.entry("type", "click"), Map.entry("id", "i-1-c"), Map.entry("impressionId", "i-1"),
                Map.entry(BeaconSigner.DEVICE_TOKEN, TOKEN)));
        assertEquals("ok", reason(s.verify(decode(click + "&ts=" + T0.plusSeconds(30).toEpochMilli()), TrustConfig.Mode.REQUIRED)));
        assertEquals("click-after-expiry", reason(s.verify(decode(click + "&ts=" + T0.plus(Duration.ofHours(2)).toEpochMilli()),
                TrustConfig.Mode.REQUIRED)));
    }
}
