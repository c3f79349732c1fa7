package io.adreport.schema.rowkey;

import io.adreport.schema.cube.Granularity;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A parsed counter row key.
 *
 * @param salt         salt bucket
 * @param granularity  bucket width
 * @param bucketMinute bucket start, epoch minutes UTC
 * @param values       dimension values in rollup order (tenant first)
 */
public record CounterKey(int salt, Granularity granularity, long bucketMinute, List<String> values) {
    public CounterKey {
        Objects.requireNonNull(granularity, "granularity");
        values = List.copyOf(values);
    }

    public Instant bucketStart() {
        return Instant.ofEpochSecond(bucketMinute * 60);
    }
}
