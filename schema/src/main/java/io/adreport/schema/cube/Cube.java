package io.adreport.schema.cube;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The cube: the one model of what events look like and which counters exist. Everything that
 * knows about dimensions, metrics or rollups asks this record; nothing hard-codes the ads cube.
 *
 * @param name            cube name; the default HBase namespace
 * @param event           event fields (type, id, time, join, hashed fields)
 * @param dimensions      dimensions, by declaration order
 * @param numericFields   summable long fields
 * @param metrics         stored counters
 * @param derived         query-time ratios
 * @param rollups         counter tables
 * @param saltBuckets     salt buckets (= pre-split regions) of every counter table; frozen per
 *                        table version: more buckets spread writes wider but fan a scan out wider
 * @param rawSaltBuckets  salt buckets of the raw events table; frozen likewise
 * @param rawTtlDays      raw event retention
 * @param maxValueLength  maximum length of any string value not covered by a dimension rule
 * @param source          the text {@link CubeLoader} read this cube from, or null for a cube
 *                        built in code; only a cube with its source can be sent to the tasks of
 *                        a MapReduce job, which read it again from that text
 */
public record Cube(String name, EventSpec event, List<Dimension> dimensions,
                   List<NumericField> numericFields, List<Metric> metrics,
                   List<DerivedMetric> derived, List<Rollup> rollups,
                   int saltBuckets, int rawSaltBuckets, int rawTtlDays, int maxValueLength, CubeSource source) {

    public Cube {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(event, "event");
        dimensions = List.copyOf(dimensions);
        numericFields = List.copyOf(numericFields);
        metrics = List.copyOf(metrics);
        derived = List.copyOf(derived);
        rollups = List.copyOf(rollups);
    }

    /** A cube built in code, without source text. */
    public Cube(String name, EventSpec event, List<Dimension> dimensions, List<NumericField> numericFields,
                List<Metric> metrics, List<DerivedMetric> derived, List<Rollup> rollups,
                int saltBuckets, int rawSaltBuckets, int rawTtlDays, int maxValueLength) {
        this(name, event, dimensions, numericFields, metrics, derived, rollups, saltBuckets, rawSaltBuckets, rawTtlDays,
                maxValueLength, null);
    }

    public Optional<Dimension> dimension(String name) {
        return dimensions.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    public Optional<Metric> metric(String name) {
        return metrics.stream().filter(m -> m.name().equals(name)).findFirst();
    }

    public Optional<DerivedMetric> derivedMetric(String name) {
        return derived.stream().filter(m -> m.name().equals(name)).findFirst();
    }

    public Optional<NumericField> numericField(String name) {
        return numericFields.stream().filter(f -> f.name().equals(name)).findFirst();
    }

    public Optional<Rollup> rollup(String name) {
        return rollups.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /** Rollups by name, in declaration order. */
    public Map<String, Rollup> rollupsByName() {
        Map<String, Rollup> byName = new LinkedHashMap<>();
        rollups.forEach(r -> byName.put(r.name(), r));
        return byName;
    }
}
