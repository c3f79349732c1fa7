package io.adreport.schema.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.EventSpec;
import io.adreport.schema.cube.NumericField;
import io.adreport.schema.cube.ProfileModel;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
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
 *
 * <p>Two inputs, one set of rules: {@link #parse(JsonParser)} reads one value straight from a
 * token stream (ingest bodies: no tree per event, and the values of undeclared fields are skipped
 * without being decoded); {@link #parse(JsonNode)} takes a tree (query parameters, files, tests).
 * Both first reduce the object to its declared top-level fields ({@link Fields}: text, integer,
 * or "something else"), then apply the same checks to that.
 */
public final class EventParser {
    public static final Duration MAX_FUTURE = Duration.ofMinutes(5);
    public static final int MAX_ID_LENGTH = 128;

    private final Cube cube;
    private final Clock clock;
    private final Duration acceptWindow;
    private final DeviceHashes hashes;
    /** Top-level fields the rules read; every other field's value is skipped unread. */
    private final Set<String> declared;

    /** The keyed hash this parser applies to hashed fields, or null when the cube hashes none. */
    public DeviceHasher hasher() {
        return hashes == null ? null : hashes.currentHasher();
    }

    /** The device's hashes (current, and previous while rotating), or null when the cube hashes none. */
    public DeviceHashes hashes() {
        return hashes;
    }

    public EventParser(Cube cube, Clock clock, Duration acceptWindow, DeviceHasher hasher) {
        this(cube, clock, acceptWindow, hasher == null ? null : DeviceHashes.of(hasher));
    }

    /**
     * A parser hashing with {@code hashes}' current secret; while it rotates, an event's device
     * field also gets its previous hash under {@link DeviceHashes#formerField} (not part of a
     * content id), which the nightly pass reads to move the device's older data.
     */
    public EventParser(Cube cube, Clock clock, Duration acceptWindow, DeviceHashes hashes) {
        this.cube = cube;
        this.clock = clock;
        this.acceptWindow = acceptWindow;
        this.hashes = hashes;
        if (!cube.event().hashedFields().isEmpty() && hashes == null) {
            throw new IllegalArgumentException("the cube hashes " + cube.event().hashedFields() + ": a device hash secret is required");
        }
        EventSpec spec = cube.event();
        Set<String> names = new HashSet<>();
        if (spec.typeField() != null) {
            names.add(spec.typeField());
        }
        if (spec.idField() != null) {
            names.add(spec.idField());
        }
        names.add(spec.timeField());
        if (spec.join() != null) {
            names.add(spec.join().field());
        }
        cube.dimensions().forEach(d -> names.add(d.name()));
        cube.numericFields().forEach(f -> names.add(f.name()));
        names.addAll(spec.hashedFields());
        this.declared = Set.copyOf(names);
    }

    public Cube cube() {
        return cube;
    }

    /** Validates one event given as a JSON tree. */
    public Event parse(JsonNode node) throws EventRejected {
        if (node == null || !node.isObject()) {
            throw new EventRejected("event", "must be a JSON object");
        }
        Fields fields = new Fields();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            if (declared.contains(f.getKey())) {
                fields.put(f.getKey(), Fields.of(f.getValue()));
            }
        }
        return validate(fields);
    }

    /**
     * Validates one event read from {@code p}, whose current token is the first token of the
     * value. The whole value is consumed (also when it is rejected), so the caller's stream is
     * left on its last token either way.
     *
     * @throws IOException malformed JSON (the stream is then unusable)
     */
    public Event parse(JsonParser p) throws IOException, EventRejected {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            throw new EventRejected("event", "must be a JSON object");
        }
        Fields fields = new Fields();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (!declared.contains(name)) {
                p.skipChildren();
                continue;
            }
            fields.put(name, Fields.of(p, v));
        }
        if (t != JsonToken.END_OBJECT) {
            throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected token " + t + " in an object");
        }
        return validate(fields);
    }

    private Event validate(Fields node) throws EventRejected {
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
            Object v = node.get(f.name());
            if (v == null) {
                continue;
            }
            if (!(v instanceof Long n)) {
                throw new EventRejected(f.name(), "must be an integer");
            }
            if (n < f.min()) {
                throw new EventRejected(f.name(), "must be >= " + f.min());
            }
            numbers.put(f.name(), n);
        }
        Map<String, String> hashed = new HashMap<>();
        String former = null;
        for (String f : spec.hashedFields()) {
            String v = optionalText(node, f, 4 * DeviceId.MAX_LENGTH);
            if (v != null) {
                try {
                    String device = DeviceId.normalize(v);
                    hashed.put(f, hashes.current(device));
                    if (hashes.rotating() && ProfileModel.DEVICE_FIELD.equals(f)) {
                        former = hashes.previous(device);
                    }
                } catch (IllegalArgumentException e) {
                    throw new EventRejected(f, e.getMessage());
                }
            }
        }
        String id;
        if (spec.idField() != null) {
            id = requiredText(node, spec.idField(), MAX_ID_LENGTH);
        } else {
            id = contentHash(type, ts, dims, numbers, hashed);
        }
        if (former != null) {
            hashed.put(DeviceHashes.formerField(ProfileModel.DEVICE_FIELD), former);
        }
        return new Event(type, id, ts, dims, numbers, joinRef, hashed);
    }

    private Instant timestamp(Fields node, String field) throws EventRejected {
        Object v = node.get(field);
        if (v == null) {
            throw new EventRejected(field, "is required");
        }
        Instant ts;
        if (v instanceof Long n) {
            ts = Instant.ofEpochMilli(n);
        } else if (v instanceof BigInteger n) {
            ts = Instant.ofEpochMilli(n.longValue());
        } else if (v instanceof String text) {
            try {
                ts = OffsetDateTime.parse(text).toInstant();
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

    private static boolean present(Fields node, String field) {
        return node.get(field) != null;
    }

    private String requiredText(Fields node, String field, int max) throws EventRejected {
        String v = optionalText(node, field, max);
        if (v == null) {
            throw new EventRejected(field, "is required");
        }
        return v;
    }

    /** Text (numbers are accepted and kept as their decimal text), checked for length and controls. */
    private String optionalText(Fields node, String field, int max) throws EventRejected {
        Object v = node.get(field);
        if (v == null) {
            return null;
        }
        String s;
        if (v instanceof String text) {
            s = text;
        } else if (v instanceof Long || v instanceof BigInteger) {
            s = v.toString();
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
    /**
     * The declared top-level fields of one object, each reduced to what the rules distinguish:
     * a {@code String} (JSON string), a {@code Long} or {@code BigInteger} (JSON integer), or
     * {@link #OTHER} (a fraction, boolean, object or array). JSON null and absent are the same:
     * no entry. A field given twice keeps its last value, as a tree would.
     */
    static final class Fields {
        static final Object OTHER = new Object();
        private final Map<String, Object> values = new HashMap<>(16);

        void put(String name, Object value) {
            if (value == null) {
                values.remove(name);
            } else {
                values.put(name, value);
            }
        }

        Object get(String name) {
            return values.get(name);
        }

        static Object of(JsonNode v) {
            if (v == null || v.isNull()) {
                return null;
            }
            if (v.isTextual()) {
                return v.asText();
            }
            if (v.isIntegralNumber()) {
                return v.canConvertToLong() ? (Object) v.asLong() : v.bigIntegerValue();
            }
            return OTHER;
        }

        /** The value starting at token {@code t}; containers are skipped whole. */
        static Object of(JsonParser p, JsonToken t) throws IOException {
            switch (t) {
                case VALUE_STRING:
                    return p.getText();
                case VALUE_NUMBER_INT:
                    return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue() : (Object) p.getLongValue();
                case VALUE_NULL:
                    return null;
                case START_OBJECT:
                case START_ARRAY:
                    p.skipChildren();
                    return OTHER;
                default:
                    return OTHER;
            }
        }
    }
}
