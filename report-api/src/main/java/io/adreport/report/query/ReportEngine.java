package io.adreport.report.query;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.DerivedMetric;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.adreport.schema.metrics.Metrics;
import io.adreport.http.QueryException;

/**
 * Answers a {@link ReportQuery}: plans it, reads the counters, computes derived metrics, orders
 * and cuts the top N.
 *
 * <p>Top-N is exact: every matching row is summed before ordering, because a group's total is
 * only known once all its time buckets and salt buckets are read. Without groupBy every bucket of
 * the range is returned (zero when nothing was counted) so that a series has no gaps; with
 * groupBy only groups that have counts appear.
 *
 * <p>Order: {@code orderBy} first (a metric, a groupBy dimension or {@code time}; a null derived
 * value sorts last either way), then time ascending, then groupBy values ascending, so that ties
 * always come out in the same order and a top-N cut is reproducible.
 *
 * <p>Plans: a top-N by a stored metric over whole reconciled UTC days is first offered to
 * {@link RankedTopN} (the ranked index, exact threshold merge); when it cannot answer exactly the
 * counters are read as above. {@code adreport_report_plan_total{plan}} counts the plan each
 * report took: {@code ranked_index}, {@code multiget} (a fixed series) or {@code scan}.
 */
public final class ReportEngine {
    private final Cube cube;
    private final QueryPlanner planner;
    private final CounterReader reader;
    private final int maxResultRows;
    private final RankedTopN ranked;
    private final Metrics.Counter rankedPlans;
    private final Metrics.Counter getPlans;
    private final Metrics.Counter scanPlans;

    /** @param ranked the ranked-index top-N reader, or null to always read the counters */
    public ReportEngine(Cube cube, QueryPlanner planner, CounterReader reader, int maxResultRows, RankedTopN ranked,
                        Metrics metrics) {
        this.cube = cube;
        this.planner = planner;
        this.reader = reader;
        this.maxResultRows = maxResultRows;
        this.ranked = ranked;
        String help = "Reports by the plan that answered them";
        this.rankedPlans = metrics.counter("adreport_report_plan_total", help, "plan", "ranked_index");
        this.getPlans = metrics.counter("adreport_report_plan_total", help, "plan", "multiget");
        this.scanPlans = metrics.counter("adreport_report_plan_total", help, "plan", "scan");
    }

    /** How {@code q} is read (the export streams the same plan). */
    public QueryPlan plan(ReportQuery q) {
        return planner.plan(q);
    }

    public ReportResult run(ReportQuery q) {
        QueryPlan plan = planner.plan(q);
        if (ranked != null && RankedTopN.isTopN(q)) {
            Optional<List<ReportRow>> top = ranked.answer(q, plan);
            if (top.isPresent()) {
                rankedPlans.inc();
                return new ReportResult(q, plan, top.get());
            }
        }
        (plan.pointLookup() ? getPlans : scanPlans).inc();
        Map<GroupKey, long[]> cells = reader.read(q, plan);
        if (q.groupBy().isEmpty()) {
            for (int b = 0; b < plan.buckets().size(); b++) {
                cells.computeIfAbsent(new GroupKey(b, List.of()), k -> new long[plan.columns().size()]);
            }
        }
        if (q.limit() == null && cells.size() > maxResultRows) {
            throw new QueryException("limit", "the report has " + cells.size() + " rows, more than "
                    + maxResultRows + "; set a limit, group by fewer dimensions or shorten the range");
        }
        List<ReportRow> rows = new ArrayList<>(cells.size());
        for (Map.Entry<GroupKey, long[]> e : cells.entrySet()) {
            rows.add(row(cube, q, plan, e.getKey(), e.getValue()));
        }
        rows.sort(order(q));
        if (q.limit() != null && rows.size() > q.limit()) {
            rows = rows.subList(0, q.limit());
        }
        return new ReportResult(q, plan, rows);
    }

    /** One output row of a cell: groupBy values by name, stored and derived metrics in requested order. */
    static ReportRow row(Cube cube, ReportQuery q, QueryPlan plan, GroupKey key, long[] sums) {
        boolean all = q.granularity() == ReportGranularity.ALL;
        Map<String, String> dims = new LinkedHashMap<>();
        for (int i = 0; i < q.groupBy().size(); i++) {
            dims.put(q.groupBy().get(i), key.values().get(i));
        }
        Map<String, Number> metrics = new LinkedHashMap<>();
        for (String m : q.metrics()) {
            if (cube.metric(m).isPresent()) {
                metrics.put(m, sums[plan.columns().indexOf(m)]);
            } else {
                DerivedMetric d = cube.derivedMetric(m).orElseThrow();
                metrics.put(m, d.compute(sums[plan.columns().indexOf(d.numerator())],
                        sums[plan.columns().indexOf(d.denominator())]));
            }
        }
        Instant time = all ? null : plan.buckets().start(key.bucket());
        return new ReportRow(time, dims, metrics);
    }

    static Comparator<ReportRow> order(ReportQuery q) {
        Comparator<ReportRow> tieBreak = Comparator.comparing(ReportRow::time, Comparator.nullsFirst(Comparator.naturalOrder()));
        for (String d : q.groupBy()) {
            tieBreak = tieBreak.thenComparing(r -> r.dimensions().get(d));
        }
        ReportQuery.Order o = q.orderBy();
        if (o == null) {
            return tieBreak;
        }
        Comparator<ReportRow> primary;
        if (o.key().equals("time")) {
            primary = Comparator.comparing(ReportRow::time, Comparator.nullsFirst(Comparator.naturalOrder()));
            if (o.descending()) {
                primary = primary.reversed();
            }
        } else if (q.groupBy().contains(o.key())) {
            primary = Comparator.comparing(r -> r.dimensions().get(o.key()));
            if (o.descending()) {
                primary = primary.reversed();
            }
        } else {
            Comparator<Number> byValue = ReportEngine::compareNumbers;
            if (o.descending()) {
                byValue = byValue.reversed();
            }
            primary = Comparator.comparing(r -> r.metrics().get(o.key()), Comparator.nullsLast(byValue));
        }
        return primary.thenComparing(tieBreak);
    }

    /** Longs exactly (sums of micros can pass 2^53), doubles as doubles. */
    private static int compareNumbers(Number a, Number b) {
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        return Double.compare(a.doubleValue(), b.doubleValue());
    }
}
