package io.adreport.report.query;

import java.util.List;

/**
 * One result cell before ordering: an output bucket index and the groupBy values.
 *
 * @param bucket index into the report's {@link TimeBuckets}
 * @param values groupBy dimension values, in groupBy order
 */
public record GroupKey(int bucket, List<String> values) {
    public GroupKey {
        values = List.copyOf(values);
    }
}
