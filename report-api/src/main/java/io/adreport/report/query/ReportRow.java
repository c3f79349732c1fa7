package io.adreport.report.query;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One result row.
 *
 * @param time       bucket start (clipped to the report's from), or null for granularity all
 * @param dimensions groupBy dimension → value, in groupBy order
 * @param metrics    metric → value in requested order: {@code Long} for stored metrics,
 *                   {@code Double} or null (zero denominator) for derived ones
 */
public record ReportRow(Instant time, Map<String, String> dimensions, Map<String, Number> metrics) {
    public ReportRow {
        Objects.requireNonNull(dimensions, "dimensions");
        Objects.requireNonNull(metrics, "metrics");
    }
}
