package io.adreport.schema.trust;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The beacon signing keys in force, from the setting {@code beacon.keys}:
 * {@code ID:SECRET[,ID:SECRET...]}. The first key signs; every listed key verifies. Rotation is
 * by key id: add the new key second (every process now verifies it), then move it first (new
 * beacons are signed with it while the old key still verifies beacons handed out before), then,
 * after {@code beacon.ttl.ms}, drop the old one (a beacon signed with it is then refused as
 * {@code unknown-key}). A key id is 1..16 of {@code [A-Za-z0-9_-]}; a secret at least 16
 * characters.
 *
 * @param byId    the secrets by key id, in the order given (the first signs)
 */
public record BeaconKeys(Map<String, byte[]> byId) {
    public static final BeaconKeys NONE = new BeaconKeys(Map.of());
    public static final String RULE = "ID:SECRET[,ID:SECRET...] with ID 1..16 of [A-Za-z0-9_-] and SECRET at least 16 characters";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,16}");

    public BeaconKeys {
        byId = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byId));
    }

    /**
     * Parses the setting's text; empty means no keys.
     *
     * @throws IllegalArgumentException naming {@link #RULE}
     */
    public static BeaconKeys parse(String text) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return NONE;
        }
        for (String entry : List.of(text.split(","))) {
            String e = entry.trim();
            int colon = e.indexOf(':');
            if (colon < 0 || !ID.matcher(e.substring(0, colon)).matches() || e.length() - colon - 1 < 16
                    || keys.put(e.substring(0, colon), e.substring(colon + 1).getBytes(StandardCharsets.UTF_8)) != null) {
                throw new IllegalArgumentException("beacon.keys: must be " + RULE + ", each id once");
            }
        }
        return new BeaconKeys(keys);
    }

    /** True for text {@link #parse} accepts. */
    public static boolean valid(String text) {
        try {
            parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    public boolean isEmpty() {
        return byId.isEmpty();
    }

    /** The id of the key that signs, or empty when there is none. */
    public Optional<String> current() {
        return byId.keySet().stream().findFirst();
    }

    public Optional<byte[]> secret(String id) {
        return Optional.ofNullable(byId.get(id));
    }
}
