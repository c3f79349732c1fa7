package io.adreport.report.query;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import io.adreport.schema.topn.RankedIndexCodec;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.apache.hadoop.hbase.client.Connection;

/**
 * Exact top-N from the ranked index of reconciled days and months ({@link RankedIndexCodec}),
 * reading only what can still enter the answer.
 *
 * <p><b>When.</b> A report whose shape the index answers exactly: granularity {@code all}, a
 * {@code limit}, ordered descending by a <i>stored</i> metric (a derived metric such as ctr has no
 * bound from its parts' lists and falls back), filtered at most on the rollup's tenant (the
 * tenant-prefixed lists), grouped by every dimension not filtered, and covering at least one
 * whole reconciled UTC day whose index is published. Anything else returns empty and the engine
 * reads as before; {@code adreport_report_topn_fallback_total{reason}} says why.
 *
 * <p><b>Lists.</b> The range is cut into indexed periods and scanned segments. A whole UTC month
 * inside the range whose month list is current (its pointer names the generations of the day
 * lists now published, and every day is reconciled) is one list; other reconciled, indexed UTC
 * days are one list each. Live or closing days and partial edge days (e.g. a Kolkata midnight)
 * are read by the ordinary plan into exact per-series sums, kept in memory as one more sorted
 * list. A 31-day report over a reconciled calendar month is therefore one prefix scan.
 *
 * <p><b>How (exact early stopping with bounds, NRA/TPUT style plus random access).</b> Each
 * round reads the next batch of every list (sorted access, one open scanner per list; batches
 * double). A series seen has a lower bound (its scanned sum plus the values read for it) and an
 * upper bound (plus, for each list not exhausted where it was not seen yet, that list's last
 * value; an exhausted list holds every positive value, so 0). A series not seen yet has at most
 * tau, the sum of the last values of the lists not exhausted. With L the N-th best lower bound:
 * a series whose upper bound is below L can never enter nor tie the answer and is dropped
 * without random access (counted in {@code adreport_report_topn_pruned_total}). Sorted access
 * stops once tau is below L (or every list is exhausted); then only the series still able to
 * reach L are resolved exactly by random access (Gets of a day's DAY counter row or a month's
 * series row), skipping cells sorted access already read when the report reads only the sort
 * metric. Each round before that also resolves the N best unresolved series by lower bound,
 * which lifts L to exact values early (Fagin's combined algorithm). The answer is exact: N
 * series reach L, so the N-th exact value is at least L, and everything dropped or unseen is
 * strictly below it.
 *
 * <p><b>Ties and zeros.</b> Rows are ordered exactly as {@link ReportEngine#order} orders them:
 * value descending, then groupBy values ascending; strict comparisons above keep every series
 * that could tie for the N-th place, so the tie-break sees all of them. When fewer than N series
 * have a positive value, the engine's answer also lists series whose value is zero; the index
 * does not list those, so such a report falls back (reason {@code few_positive}).
 *
 * <p><b>Consistency.</b> A day is used only when its status is {@code reconciled}: a re-run marks
 * it {@code closing} before it touches counters, so its counters and its published index agree;
 * a month only when all its days are and its pointer names their current generations.
 * Superseded generations survive one re-run (see {@code RankedIndexWriter}).
 *
 * <p><b>Bounds and concurrency.</b> At most {@code maxCandidates} series tracked (then it falls
 * back, reason {@code candidates}); reads run on the report executor; state is per call.
 *
 * <p><b>Parts.</b> This class decides whether the index can answer (the shape, the fallbacks);
 * {@link RankedPeriods} picks the lists, {@link ThresholdMerge} merges them, each list read by a
 * {@link RankedList}.
 */
public final class RankedTopN {
    private final Cube cube;
    private final TopNReads reads;
    private final RankedPeriods lists;
    private final Metrics metrics;
    private final Map<String, Metrics.Counter> fallbacks = new java.util.concurrent.ConcurrentHashMap<>();

    public RankedTopN(Cube cube, Connection connection, TableLayout layout, DayStatusStore meta, QueryPlanner planner,
                      CounterReader reader, ExecutorService executor, Duration timeout, int maxCandidates, Metrics metrics) {
        this.cube = cube;
        this.metrics = metrics;
        this.lists = new RankedPeriods(connection, layout, meta);
        this.reads = new TopNReads(cube, connection, layout, new RowKeyCodec(cube), planner, reader, executor, timeout, maxCandidates,
                metrics.counter("adreport_report_topn_list_entries_read_total", "Ranked index entries read by sorted access"),
                metrics.counter("adreport_report_topn_random_gets_total", "Counter cells read by random access for top-N candidates"),
                metrics.counter("adreport_report_topn_pruned_total", "Top-N candidates dropped by their upper bound without random access"),
                metrics.counter("adreport_report_topn_month_lists_total",
                        "Month lists merged by ranked top-N reports (each stands for every day of a UTC month)"));
    }

    /** True for a report asking for the top N by a metric (the shape this class is for). */
    static boolean isTopN(ReportQuery q) {
        return q.limit() != null && q.orderBy() != null && !q.orderBy().key().equals("time") && !q.groupBy().contains(q.orderBy().key());
    }

    /** The rows, or empty when the index cannot answer {@code q} exactly (counted by reason). */
    public Optional<List<ReportRow>> answer(ReportQuery q, QueryPlan plan) {
        String why = shape(q);
        if (why != null) {
            return fallback(why);
        }
        Rollup rollup = q.rollup();
        LocalDate firstFull = UtcDay.dateOf(q.from());
        if (!RankedPeriods.startOf(firstFull).equals(q.from())) {
            firstFull = firstFull.plusDays(1);
        }
        LocalDate endFull = UtcDay.dateOf(q.to());
        if (!firstFull.isBefore(endFull)) {
            return fallback("no_utc_day");
        }
        Map<LocalDate, Long> indexed = lists.indexedDays(rollup, firstFull, endFull);
        if (indexed.isEmpty()) {
            return fallback("not_indexed");
        }
        String tenant = rollup.hasTenant() ? q.filters().get(rollup.tenant()) : null;
        ThresholdMerge m = new ThresholdMerge(reads, q, plan, indexed, lists.periods(rollup, indexed, firstFull, endFull), tenant);
        try {
            m.scanSegments(firstFull, endFull);
            Optional<String> failed = m.run();
            if (failed.isPresent()) {
                return fallback(failed.get());
            }
            return Optional.of(m.rows());
        } finally {
            m.close();
        }
    }

    private String shape(ReportQuery q) {
        Rollup r = q.rollup();
        if (q.granularity() != ReportGranularity.ALL) {
            return "granularity";
        }
        if (!q.orderBy().descending()) {
            return "ascending";
        }
        if (cube.metric(q.orderBy().key()).isEmpty()) {
            return "derived_metric";
        }
        if (!r.granularities().contains(Granularity.DAY) || r.dimensions().isEmpty()) {
            return "rollup";
        }
        for (String d : q.filters().keySet()) {
            if (!d.equals(r.tenant())) {
                return "filter";
            }
        }
        for (String d : r.dimensions()) {
            if (!q.groupBy().contains(d) && !q.filters().containsKey(d)) {
                return "group_by";
            }
        }
        return null;
    }

    private Optional<List<ReportRow>> fallback(String reason) {
        fallbacks.computeIfAbsent(reason, k -> metrics.counter("adreport_report_topn_fallback_total",
                "Top-N reports the ranked index could not answer exactly, by reason", "reason", k)).inc();
        return Optional.empty();
    }
}
