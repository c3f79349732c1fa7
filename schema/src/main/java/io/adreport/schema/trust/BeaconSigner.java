package io.adreport.schema.trust;

import io.adreport.schema.cube.Cube;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.crypto.Mac;

/**
 * Signs the beacon URLs the ad server hands out and verifies them when the pixel is fired.
 *
 * <p><b>What is signed.</b> Every parameter of the URL except {@code sig} itself, and except a
 * click's time field (the browser appends it when the click happens; it must lie before the
 * signed expiry). Which beacon is a click and what its time field is called are the cube's
 * ({@link BeaconNames}: {@code type=click} and {@code ts} in the ads cube). That covers
 * whatever is counted or billed: type, id, impression id, advertiser, campaign, creative, site, zone, country, device type, cost, the device token
 * {@code dt}, the key id {@code kid} and the expiry {@code exp} (epoch ms). Adding, removing or
 * changing any of them breaks the signature; so does a parameter given twice.
 *
 * <p><b>Canonical form.</b> Parameters sorted by name, each as {@code len(name):name=len(value):value\n}
 * over the URL-decoded text (UTF-8); length prefixes make the form unambiguous whatever the
 * values hold. MAC: HMAC-SHA256 with the secret of {@code kid}, base64url without padding.
 *
 * <p><b>The device.</b> The URL carries {@code dt}, the device's keyed hash (the value ingest
 * would store), never the raw id: the id does not travel through browsers, proxies and logs.
 *
 * <p>Thread-safe: a {@link Mac} per thread and key.
 */
public final class BeaconSigner {
    public static final String KID = "kid";
    public static final String EXP = "exp";
    public static final String SIG = "sig";
    /** The device token parameter: the device's keyed hash. */
    public static final String DEVICE_TOKEN = "dt";
    /** Clock skew allowed on the expiry's far side. */
    public static final Duration SKEW = Duration.ofMinutes(1);
    private static final Pattern TOKEN = Pattern.compile("[0-9a-f]{64}");

    /** Why a beacon was refused; the label is what headers and metrics show. */
    public enum Reason {
        UNSIGNED("unsigned"), UNKNOWN_KEY("unknown-key"), BAD_EXPIRY("bad-expiry"), BAD_SIGNATURE("bad-signature"),
        EXPIRED("expired"), FUTURE_EXPIRY("future-expiry"), CLICK_AFTER_EXPIRY("click-after-expiry"),
        REPEATED_PARAMETER("repeated-parameter"), BAD_DEVICE_TOKEN("bad-device-token"),
        /** Not the signature's: the pixel refuses a beacon whose campaign the registry has paused since it was served. */
        CAMPAIGN_PAUSED("campaign-paused");

        public final String label;

        Reason(String label) {
            this.label = label;
        }
    }

    /**
     * A verified (or unverifiable) beacon.
     *
     * @param refused     why it must not be stored, or null
     * @param signed      whether it carried a signature that verified
     * @param fields      the beacon's fields without {@code kid}, {@code exp}, {@code sig} and {@code dt}
     * @param deviceToken the device's keyed hash from {@code dt}, or null
     */
    public record Verdict(Reason refused, boolean signed, Map<String, String> fields, String deviceToken) {
    }

    private final BeaconKeys keys;
    private final Duration ttl;
    private final BeaconNames names;
    private final Clock clock;
    private final Map<String, ThreadLocal<Mac>> macs = new TreeMap<>();

    /** A signer for beacons without an appended click time ({@link BeaconNames#NONE}): enough to sign. */
    public BeaconSigner(BeaconKeys keys, Duration ttl, Clock clock) {
        this(keys, ttl, BeaconNames.NONE, clock);
    }

    /** A signer that verifies the beacons of a cube with {@code names}. */
    public BeaconSigner(BeaconKeys keys, Duration ttl, BeaconNames names, Clock clock) {
        this.keys = keys;
        this.ttl = ttl;
        this.names = names;
        this.clock = clock;
        keys.byId().forEach((id, secret) -> macs.put(id, HmacSha256.perThread(secret)));
    }

    public static BeaconSigner of(TrustConfig config, Clock clock) {
        return new BeaconSigner(config.keys(), config.beaconTtl(), clock);
    }

    /** The signer of {@code config} for the beacons of {@code cube} (its {@link BeaconNames}). */
    public static BeaconSigner of(TrustConfig config, Cube cube, Clock clock) {
        return new BeaconSigner(config.keys(), config.beaconTtl(), BeaconNames.of(cube), clock);
    }

    /** Whether this signer has a key to sign with. */
    public boolean canSign() {
        return !keys.isEmpty();
    }

    /**
     * The query string of a beacon: {@code params} in order (null names, null or empty values left out), then
     * {@code kid}, {@code exp} and {@code sig} when there is a key to sign with.
     */
    public String query(List<Map.Entry<String, String>> params) {
        List<Map.Entry<String, String>> all = new ArrayList<>();
        params.stream().filter(e -> e.getKey() != null && e.getValue() != null && !e.getValue().isEmpty()).forEach(all::add);
        Optional<String> kid = keys.current();
        if (kid.isPresent()) {
            all.add(Map.entry(KID, kid.get()));
            all.add(Map.entry(EXP, Long.toString(clock.instant().plus(ttl).toEpochMilli())));
            TreeMap<String, String> sorted = new TreeMap<>();
            all.forEach(e -> sorted.put(e.getKey(), e.getValue()));
            all.add(Map.entry(SIG, mac(kid.get(), sorted)));
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : all) {
            if (b.length() > 0) {
                b.append('&');
            }
            b.append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
        }
        return b.toString();
    }

    /**
     * Checks a fired beacon's parameters (as decoded from its query string) under {@code mode}.
     * Under {@link TrustConfig.Mode#OFF} nothing is checked; under {@code OPTIONAL} an unsigned
     * beacon passes; a signed one must verify under both {@code OPTIONAL} and {@code REQUIRED}.
     */
    public Verdict verify(Map<String, List<String>> query, TrustConfig.Mode mode) {
        TreeMap<String, String> all = new TreeMap<>();
        boolean repeated = false;
        for (Map.Entry<String, List<String>> p : query.entrySet()) {
            repeated |= p.getValue().size() > 1;
            all.put(p.getKey(), p.getValue().isEmpty() ? "" : p.getValue().get(0));
        }
        TreeMap<String, String> fields = new TreeMap<>(all);
        fields.remove(KID);
        fields.remove(EXP);
        String sig = fields.remove(SIG);
        String token = fields.remove(DEVICE_TOKEN);
        if (token != null && !TOKEN.matcher(token).matches()) {
            return new Verdict(Reason.BAD_DEVICE_TOKEN, false, fields, null);
        }
        if (mode == TrustConfig.Mode.OFF || (sig == null && mode == TrustConfig.Mode.OPTIONAL)) {
            return new Verdict(null, false, fields, token);
        }
        if (sig == null) {
            return new Verdict(Reason.UNSIGNED, false, fields, token);
        }
        if (repeated) {
            return new Verdict(Reason.REPEATED_PARAMETER, false, fields, token);
        }
        String kid = all.get(KID);
        if (kid == null || !macs.containsKey(kid)) {
            return new Verdict(Reason.UNKNOWN_KEY, false, fields, token);
        }
        String expText = all.get(EXP);
        if (expText == null || !expText.matches("\\d{1,15}")) {
            return new Verdict(Reason.BAD_EXPIRY, false, fields, token);
        }
        TreeMap<String, String> signedPart = new TreeMap<>(all);
        signedPart.remove(SIG);
        String appended = names.appendedField(all);
        String ts = appended == null ? null : signedPart.remove(appended);
        if (!MessageDigest.isEqual(mac(kid, signedPart).getBytes(StandardCharsets.US_ASCII), sig.getBytes(StandardCharsets.UTF_8))) {
            return new Verdict(Reason.BAD_SIGNATURE, false, fields, token);
        }
        long exp = Long.parseLong(expText);
        long now = clock.millis();
        if (now > exp) {
            return new Verdict(Reason.EXPIRED, false, fields, token);
        }
        if (exp > now + ttl.plus(SKEW).toMillis()) {
            return new Verdict(Reason.FUTURE_EXPIRY, false, fields, token);
        }
        if (ts != null && (!ts.matches("\\d{1,15}") || Long.parseLong(ts) > exp)) {
            return new Verdict(Reason.CLICK_AFTER_EXPIRY, false, fields, token);
        }
        return new Verdict(null, true, fields, token);
    }

    private String mac(String kid, TreeMap<String, String> sorted) {
        StringBuilder c = new StringBuilder();
        sorted.forEach((k, v) -> c.append(k.length()).append(':').append(k).append('=').append(v.length()).append(':').append(v).append('\n'));
        byte[] m = macs.get(kid).get().doFinal(c.toString().getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(m);
    }
}
