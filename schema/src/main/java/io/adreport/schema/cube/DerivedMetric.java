package io.adreport.schema.cube;

import java.util.Objects;

/**
 * A ratio computed at query time: {@code numerator / denominator * scale}; null when the
 * denominator is zero. Examples: {@code ctr = clicks / impressions},
 * {@code ecpm = spendMicros / impressions * 0.001} (currency units per thousand impressions).
 */
public record DerivedMetric(String name, String numerator, String denominator, double scale) {
    public DerivedMetric {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(numerator, "numerator");
        Objects.requireNonNull(denominator, "denominator");
    }

    public Double compute(long num, long den) {
        return den == 0 ? null : (double) num / den * scale;
    }
}
