package io.adreport.schema.cube;

import java.util.List;
import java.util.Objects;

/**
 * One counter table: counters broken down by {@code dimensions} (in row-key order) at each of
 * {@code granularities}.
 *
 * @param name          rollup name, also part of the table name
 * @param dimensions    dimension names in key order; when there is a tenant it comes first
 * @param tenant        the dimension whose value owns the rows (advertiser, publisher), or null
 *                      when only analysts may read the rollup
 * @param granularities stored bucket widths
 * @param ttlDays       counter retention in days
 */
public record Rollup(String name, List<String> dimensions, String tenant,
                     List<Granularity> granularities, int ttlDays) {
    public Rollup {
        Objects.requireNonNull(name, "name");
        dimensions = List.copyOf(dimensions);
        granularities = List.copyOf(granularities);
        if (tenant != null && (dimensions.isEmpty() || !dimensions.get(0).equals(tenant))) {
            throw new IllegalArgumentException("tenant must be the first dimension");
        }
    }

    public boolean hasTenant() {
        return tenant != null;
    }

    /** Finest stored granularity. */
    public Granularity finest() {
        return granularities.stream().min(java.util.Comparator.comparingInt(Granularity::minutes)).orElseThrow();
    }
}
