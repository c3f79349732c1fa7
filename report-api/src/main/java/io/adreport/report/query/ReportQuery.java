package io.adreport.report.query;

import io.adreport.schema.cube.Rollup;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One report request, validated: a rollup over [from, to) cut into {@code granularity} buckets in
 * {@code zone}, with equality filters, a breakdown, an order and a top-N limit.
 *
 * @param rollup      the counter table
 * @param from        start, inclusive
 * @param to          end, exclusive
 * @param granularity bucket width in {@code zone}
 * @param zone        where hours, days and months are cut
 * @param metrics     stored or derived metric names, in output order
 * @param filters     dimension → value, every dimension a dimension of the rollup; a tenant's
 *                    own id is added here by the access policy
 * @param groupBy     dimensions to break down by, in output order
 * @param orderBy     order, or null for time then dimension values
 * @param limit       top-N over all result rows, or null for every row
 */
public record ReportQuery(Rollup rollup, Instant from, Instant to, ReportGranularity granularity, ZoneId zone,
                          List<String> metrics, Map<String, String> filters, List<String> groupBy,
                          Order orderBy, Integer limit) {

    /** Order by a metric, a groupBy dimension or {@code time}; ties fall back to time, then dimensions. */
    public record Order(String key, boolean descending) {
        public Order {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public String toString() {
            return (descending ? "-" : "") + key;
        }
    }

    public ReportQuery {
        Objects.requireNonNull(rollup, "rollup");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(granularity, "granularity");
        Objects.requireNonNull(zone, "zone");
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("from must be before to");
        }
        metrics = List.copyOf(metrics);
        filters = Map.copyOf(new LinkedHashMap<>(filters));
        groupBy = List.copyOf(groupBy);
        if (metrics.isEmpty()) {
            throw new IllegalArgumentException("at least one metric");
        }
        for (String d : filters.keySet()) {
            if (!rollup.dimensions().contains(d)) {
                throw new IllegalArgumentException(d + " is not a dimension of " + rollup.name());
            }
        }
        for (String d : groupBy) {
            if (!rollup.dimensions().contains(d)) {
                throw new IllegalArgumentException(d + " is not a dimension of " + rollup.name());
            }
        }
        if (limit != null && limit < 1) {
            throw new IllegalArgumentException("limit must be positive");
        }
    }

    public ReportQuery withFilters(Map<String, String> newFilters) {
        return new ReportQuery(rollup, from, to, granularity, zone, metrics, newFilters, groupBy, orderBy, limit);
    }

    /** True when every dimension of the rollup is fixed, i.e. the report reads one series. */
    public boolean singleSeries() {
        return filters.keySet().containsAll(rollup.dimensions());
    }
}
