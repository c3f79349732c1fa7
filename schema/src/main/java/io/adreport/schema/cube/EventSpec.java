package io.adreport.schema.cube;

import java.util.List;
import java.util.Objects;

/**
 * How events of a cube look: which fields carry the type, id and time, which values join to
 * another event, and which fields are replaced by a keyed hash before storage.
 *
 * @param typeField    field holding the event type, or null for single-type streams
 * @param types        accepted types (empty when typeField is null)
 * @param idField      field holding the unique event id; null means the id is a content hash
 *                     (SHA-256 of the canonical event), for streams without ids
 * @param timeField    field holding the event time (ISO-8601 with offset, or epoch millis)
 * @param join         attribution join, or null
 * @param hashedFields fields replaced by HMAC-SHA256(secret, value) before anything is stored
 */
public record EventSpec(String typeField, List<String> types, String idField, String timeField,
                        Join join, List<String> hashedFields) {

    /**
     * Events of {@code fromTypes} name a {@code targetType} event in {@code field} and inherit
     * its dimensions. The target is looked up in the raw table for the event's day and up to
     * {@code lookbackDays} days before.
     */
    public record Join(String field, List<String> fromTypes, String targetType, int lookbackDays) {
        public Join {
            Objects.requireNonNull(field, "field");
            fromTypes = List.copyOf(fromTypes);
            Objects.requireNonNull(targetType, "targetType");
        }

        public boolean appliesTo(String type) {
            return fromTypes.contains(type);
        }
    }

    public EventSpec {
        types = List.copyOf(types);
        hashedFields = List.copyOf(hashedFields);
        Objects.requireNonNull(timeField, "timeField");
    }
}
