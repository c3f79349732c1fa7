package io.adreport.schema.event;

import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.EventSpec;
import io.adreport.schema.cube.NumericField;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns one JSON object into a validated {@link Event} for a cube, or rejects it with the field
 * and the rule. Pure: no I/O; thread-safe.
 *
 * <p>Rules: the object must be a JSON object; type one of the cube's types; id present,
 * 1..128 characters; ts present, ISO-8601 with an offset or epoch milliseconds, at most
 * {@link #MAX_FUTURE} ahead of the clock and no older than the accept window; join events must
 * name their target; strings within their length limit and free of control characters;
 * dimension values match their pattern after normalization; numbers are integers at or above
 * the field's minimum. Fields the cube does not declare are ignored and never stored.
 */
public final class EventParser {
    public static final Duration MAX_FUTURE = Duration.ofMinutes(5);
    public static final int MAX_ID_LENGTH = 128;

    private final Cube cube;
    private final Clock clock;
    private final Duration acceptWindow;
    private final DeviceHasher hasher;

    /** The keyed hash this parser applies to hashed fields, or null when the cube hashes none. */
    public DeviceHasher hasher() {
        return hasher;
    }

    public EventParser(Cube cube, Clock clock, Duration acceptWindow, DeviceHasher hasher) {
        this.cube = cube;
        this.clock = clock;
        this.acceptWindow = acceptWindow;
        this.hasher = hasher;
        if (!cube.event().hashedFields().isEmpty() && hasher == null) {
            throw new IllegalArgumentException("the cube hashes " + cube.event().hashedFields() + ": a device hash secret is required");
        }
    }

    public Cube cube() {
        return cube;
    }

    public Event parse(JsonNode node) throws EventRejected {
        if (node == null || !node.isObject()) {
            throw new EventRejected("event", "must be a JSON object");
        }
        EventSpec spec = cube.event();
        String type = null;
        if (spec.typeField() != null) {
            type = requiredText(node, spec.typeField(), cube.maxValueLength());
            if (!spec.types().contains(type)) {
                throw new EventRejected(spec.typeField(), "must be one of " + String.join(", ", spec.types()));
            }
        }
        Instant ts = timestamp(node, spec.timeField());

        boolean joined = spec.join() != null && spec.join().appliesTo(type);
        String joinRef = null;
        if (joined) {
            joinRef = requiredText(node, spec.join().field(), MAX_ID_LENGTH);
        } else if (spec.join() != null && present(node, spec.join().field())) {
            throw new EventRejected(spec.join().field(), "only allowed for " + String.join(", ", spec.join().fromTypes()));
        }

        Map<String, String> dims = new HashMap<>();
        if (!joined) { // join events inherit their target's dimensions
            for (Dimension d : cube.dimensions()) {
                String v = optionalText(node, d.name(), d.maxLength());
                if (v == null) {
                    continue;
                }
                v = d.normalizeValue(v);
                if (d.pattern() != null && !d.pattern().matcher(v).matches()) {
                    throw new EventRejected(d.name(), "must match " + d.pattern().pattern());
                }
                dims.put(d.name(), v);
            }
        }
        Map<String, Long> numbers = new HashMap<>();
        for (NumericField f : cube.numericFields()) {
            JsonNode v = node.get(f.name());
            if (v == null || v.isNull()) {
                continue;
            }
            if (!v.isIntegralNumber() || !v.canConvertToLong()) {
                throw new EventRejected(f.name(), "must be an integer");
            }
            if (v.asLong() < f.min()) {
                throw new EventRejected(f.name(), "must be >= " + f.min());
            }
            numbers.put(f.name(), v.asLong());
        }
        Map<String, String> hashed = new HashMap<>();
        for (String f : spec.hashedFields()) {
            String v = optionalText(node, f, cube.maxValueLength());
            if (v != null) {
                hashed.put(f, hasher.hash(v));
            }
        }
        String id;
        if (spec.idField() != null) {
            id = requiredText(node, spec.idField(), MAX_ID_LENGTH);
        } else {
            id = contentHash(type, ts, dims, numbers, hashed);
        }
        return new Event(type, id, ts, dims, numbers, joinRef, hashed);
    }

    private Instant timestamp(JsonNode node, String field) throws EventRejected {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw new EventRejected(field, "is required");
        }
        Instant ts;
        if (v.isIntegralNumber()) {
            ts = Instant.ofEpochMilli(v.asLong());
        } else if (v.isTextual()) {
            try {
                ts = OffsetDateTime.parse(v.asText()).toInstant();
            } catch (DateTimeParseException e) {
                throw new EventRejected(field, "must be ISO-8601 with an offset (2026-11-29T10:15:00Z) or epoch milliseconds");
            }
        } else {
            throw new EventRejected(field, "must be ISO-8601 with an offset (2026-11-29T10:15:00Z) or epoch milliseconds");
        }
        Instant now = clock.instant();
        if (ts.isAfter(now.plus(MAX_FUTURE))) {
            throw new EventRejected(field, "must not be more than 5 minutes in the future");
        }
        if (ts.isBefore(now.minus(acceptWindow))) {
            throw new EventRejected(field, "must not be older than the accept window (" + acceptWindow.toDays() + " days)");
        }
        return ts;
    }

    private static boolean present(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && !v.isNull();
    }

    private String requiredText(JsonNode node, String field, int max) throws EventRejected {
        String v = optionalText(node, field, max);
        if (v == null) {
            throw new EventRejected(field, "is required");
        }
        return v;
    }

    /** Text (numbers are accepted and kept as their decimal text), checked for length and controls. */
    private String optionalText(JsonNode node, String field, int max) throws EventRejected {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        String s;
        if (v.isTextual()) {
            s = v.asText();
        } else if (v.isIntegralNumber()) {
            s = v.asText();
        } else {
            throw new EventRejected(field, "must be a string");
        }
        if (s.isEmpty()) {
            throw new EventRejected(field, "must not be empty");
        }
        if (s.length() > max) {
            throw new EventRejected(field, "must be at most " + max + " characters");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isISOControl(c)) {
                throw new EventRejected(field, "must not contain control characters");
            }
        }
        return s;
    }

    private static String contentHash(String type, Instant ts, Map<String, String> dims,
                                      Map<String, Long> numbers, Map<String, String> hashed) {
        StringBuilder canonical = new StringBuilder();
        canonical.append(type).append('\u0001').append(ts.toEpochMilli());
        new TreeMap<>(dims).forEach((k, v) -> canonical.append('\u0001').append(k).append('=').append(v));
        new TreeMap<>(numbers).forEach((k, v) -> canonical.append('\u0001').append(k).append('=').append(v));
        new TreeMap<>(hashed).forEach((k, v) -> canonical.append('\u0001').append(k).append('=').append(v));
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
