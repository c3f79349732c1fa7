package io.adreport.report.query;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.DerivedMetric;
import io.adreport.schema.cube.Granularity;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import io.adreport.http.QueryException;

/**
 * Chooses how to read a report. Stored buckets are UTC-aligned 15 minutes, hours and days; a
 * report's buckets are cut in its zone. The planner picks the coarsest stored granularity of the
 * rollup whose boundaries fall on every output boundary: UTC days read DAY rows, New York hours
 * and days (whole-hour offsets, DST included) read HOUR rows, Kolkata (+05:30) and Kathmandu
 * (+05:45) read 15-minute rows. Coarser rows mean fewer rows: a UTC day is 1 row per series at
 * DAY, 24 at HOUR, 96 at 15m.
 */
public final class QueryPlanner {
    private final Cube cube;
    private final int maxBuckets;
    private final int maxPointGets;

    public QueryPlanner(Cube cube, int maxBuckets, int maxPointGets) {
        this.cube = cube;
        this.maxBuckets = maxBuckets;
        this.maxPointGets = maxPointGets;
    }

    public QueryPlan plan(ReportQuery q) {
        TimeBuckets buckets = TimeBuckets.cut(q.from(), q.to(), q.granularity(), q.zone(), maxBuckets);
        List<Instant> boundaries = buckets.boundaries();
        List<Granularity> coarseFirst = q.rollup().granularities().stream()
                .sorted(Comparator.comparingInt(Granularity::minutes).reversed()).toList();
        Granularity chosen = null;
        for (Granularity g : coarseFirst) {
            if (boundaries.stream().allMatch(g::isAligned)) {
                chosen = g;
                break;
            }
        }
        if (chosen == null) {
            Granularity finest = q.rollup().finest();
            String param = finest.isAligned(q.from()) ? "to" : "from";
            throw new QueryException(param, "must fall on a " + finest.minutes()
                    + "-minute boundary (the finest stored bucket of rollup " + q.rollup().name() + ")");
        }
        long fromMinute = q.from().getEpochSecond() / 60;
        long toMinute = q.to().getEpochSecond() / 60;
        boolean point = q.singleSeries() && (toMinute - fromMinute) / chosen.minutes() <= maxPointGets;
        return new QueryPlan(chosen, point, buckets, fromMinute, toMinute, columns(q));
    }

    /** Stored columns a report needs: its stored metrics and the parts of its derived ones. */
    List<String> columns(ReportQuery q) {
        Set<String> out = new LinkedHashSet<>();
        for (String m : q.metrics()) {
            if (cube.metric(m).isPresent()) {
                out.add(m);
            } else {
                DerivedMetric d = cube.derivedMetric(m)
                        .orElseThrow(() -> new IllegalArgumentException("unknown metric " + m));
                out.add(d.numerator());
                out.add(d.denominator());
            }
        }
        return List.copyOf(out);
    }
}
