package io.adreport.report.query;

import io.adreport.schema.cube.Granularity;
import java.util.List;
import java.util.Objects;

/**
 * How a report is read.
 *
 * @param stored      the stored granularity read: the coarsest whose boundaries line up with
 *                    every output bucket boundary in the report's zone
 * @param pointLookup true: every rollup dimension is fixed, read by multi-get of computed keys;
 *                    false: one scan per salt bucket over the time range (or, for a fixed series
 *                    too long for a multi-get, one scan of its own salt bucket)
 * @param buckets     the output buckets
 * @param fromMinute  first stored bucket read, epoch minutes
 * @param toMinute    end of the stored range read, exclusive, epoch minutes
 * @param columns     stored metrics to read (requested ones and the parts of derived ones)
 */
public record QueryPlan(Granularity stored, boolean pointLookup, TimeBuckets buckets, long fromMinute, long toMinute,
                        List<String> columns) {
    public QueryPlan {
        Objects.requireNonNull(stored, "stored");
        columns = List.copyOf(columns);
        if (fromMinute >= toMinute || fromMinute % stored.minutes() != 0 || toMinute % stored.minutes() != 0) {
            throw new IllegalArgumentException("stored range must be aligned and non-empty");
        }
    }

    /** Stored buckets of one series in the range. */
    public long storedBuckets() {
        return (toMinute - fromMinute) / stored.minutes();
    }
}
