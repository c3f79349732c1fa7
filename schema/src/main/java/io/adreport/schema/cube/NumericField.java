package io.adreport.schema.cube;

import java.util.Objects;

/**
 * A numeric (long) field of an event that metrics can sum, e.g. {@code costMicros}.
 *
 * @param name field name
 * @param min  smallest accepted value (0 for money)
 */
public record NumericField(String name, long min) {
    public NumericField {
        Objects.requireNonNull(name, "name");
    }
}
