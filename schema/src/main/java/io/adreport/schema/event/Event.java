package io.adreport.schema.event;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A validated, normalized event, as it is stored in the raw table and fanned out into counters.
 * Hashed fields already hold their keyed hash; the raw value never reaches this record.
 *
 * @param type       event type, or null for single-type cubes
 * @param id         the event id (or content hash); with the type it is the dedup identity
 * @param ts         event time
 * @param dimensions dimension values (normalized); empty for join events until attributed
 * @param numbers    numeric field values
 * @param joinRef    id of the target event (e.g. the impression of a click), or null
 * @param hashed     hashed field values (hex HMAC-SHA256)
 */
public record Event(String type, String id, Instant ts, Map<String, String> dimensions,
                    Map<String, Long> numbers, String joinRef, Map<String, String> hashed) {

    public Event {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(ts, "ts");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty");
        }
        dimensions = java.util.Collections.unmodifiableMap(new TreeMap<>(dimensions));
        numbers = java.util.Collections.unmodifiableMap(new TreeMap<>(numbers));
        hashed = java.util.Collections.unmodifiableMap(new TreeMap<>(hashed));
    }

    /** The same event carrying the dimensions it inherits from its join target. */
    public Event withDimensions(Map<String, String> inherited) {
        return new Event(type, id, ts, inherited, numbers, joinRef, hashed);
    }

    public long number(String field) {
        Long v = numbers.get(field);
        return v == null ? 0L : v;
    }
}
