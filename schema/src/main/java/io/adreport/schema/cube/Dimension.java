package io.adreport.schema.cube;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A dimension of the cube: a string attribute of an event that rollups break counters down by.
 *
 * @param name      field name in events and APIs
 * @param maxLength maximum length in characters after normalization
 * @param normalize {@code none}, {@code upper} or {@code lower}
 * @param pattern   optional regular expression the normalized value must match, or null
 */
public record Dimension(String name, int maxLength, Normalize normalize, Pattern pattern) {

    public enum Normalize { NONE, UPPER, LOWER }

    public Dimension {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(normalize, "normalize");
        if (maxLength < 1 || maxLength > 1024) {
            throw new IllegalArgumentException("maxLength must be 1..1024, not " + maxLength);
        }
    }

    public String normalizeValue(String raw) {
        return switch (normalize) {
            case NONE -> raw;
            case UPPER -> raw.toUpperCase(Locale.ROOT);
            case LOWER -> raw.toLowerCase(Locale.ROOT);
        };
    }
}
