package io.adreport.schema.event;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The one rule for raw device ids, wherever one arrives: ingest ({@code POST /v1/events} and the
 * pixel's hashed fields), {@code /v1/serve/check}, {@code /v1/serve/ad}, the segment bulk load and
 * privacy deletion. {@link DeviceHasher} applies {@link #canonical} before it hashes, so no path
 * can hash another spelling of the same device.
 *
 * <p><b>Rule.</b> Leading and trailing white space is removed; an id shaped like a UUID (the
 * advertising ids of phones, IDFA and AAID: 8-4-4-4-12 hex digits) is lower-cased, because
 * platforms report them in either case. Any other id keeps its case: cookie and publisher ids
 * are case-sensitive. The canonical id is at most {@value #MAX_LENGTH} characters and has no
 * control characters. An empty id is allowed here; whether it names a device is
 * for {@code UnidentifiedDevices} in package profile to decide.
 */
public final class DeviceId {
    /** The longest canonical device id, in characters. */
    public static final int MAX_LENGTH = 128;
    /** The rule as error messages name it. */
    public static final String RULE = "must be at most " + MAX_LENGTH + " characters without control characters (after trimming)";

    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private DeviceId() {
    }

    /** The canonical spelling of {@code raw}: trimmed, and lower case when UUID-shaped. No limit is checked. */
    public static String canonical(String raw) {
        String s = raw.strip();
        return s.length() == 36 && UUID.matcher(s).matches() ? s.toLowerCase(Locale.ROOT) : s;
    }

    /**
     * The canonical spelling of {@code raw}, checked against the limit.
     *
     * @throws IllegalArgumentException with {@link #RULE} when the id breaks it
     */
    public static String normalize(String raw) {
        if (raw == null) {
            throw new IllegalArgumentException("is required");
        }
        String s = canonical(raw);
        if (s.length() > MAX_LENGTH || s.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(RULE);
        }
        return s;
    }
}
