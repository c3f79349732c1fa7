package io.adreport.schema.cube;

import java.util.Objects;

/**
 * A stored counter: {@code count} of events or {@code sum} of a numeric field, optionally
 * restricted to one event type and to attributed or unattributed joined events.
 *
 * @param name         metric name, also the counter column qualifier (frozen once data exists)
 * @param kind         COUNT or SUM
 * @param field        the summed numeric field (SUM only), else null
 * @param eventType    only events of this type, or null for all
 * @param unattributed true: only joined events whose target was not found (e.g. clicks whose
 *                     impression is not known yet); false: every other event
 */
public record Metric(String name, Kind kind, String field, String eventType, boolean unattributed) {

    public enum Kind { COUNT, SUM }

    public Metric {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.SUM) != (field != null)) {
            throw new IllegalArgumentException("field is required for sum and not allowed for count");
        }
    }
}
