package io.adreport.report.query;

import io.adreport.http.ReadFailure;
import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One top-N report's exact merge of ranked lists ({@link RankedTopN} describes the algorithm: the
 * lower and upper bounds of each series seen, the threshold tau of the series not seen yet,
 * dropping without random access, resolving by Gets). The lists are those {@link RankedPeriods}
 * chose; the parts of the range no list covers are read by the ordinary plan first
 * ({@link #scanSegments}) and merged as one more sorted list, held in memory.
 *
 * <p>Request thread only; read tasks on the report executor return values, and state is per
 * report.
 */
final class ThresholdMerge {
    private static final int GET_CHUNK = 500;

    private final TopNReads reads;
    private final ReportQuery q;
    private final QueryPlan plan;
    private final Rollup rollup;
    private final Map<LocalDate, Long> indexed;
    private final List<RankedPeriods.Period> periods;
    private final String tenant;
    private final int sortColumn;
    private final int width;
    private final long deadline;
    /** Exact sums of the scanned segments, by series (rollup-order values). */
    private final Map<List<String>, long[]> scanned = new HashMap<>();
    private final List<RankedList> lists = new ArrayList<>();
    private List<Map.Entry<List<String>, long[]>> memList;
    private int memPos;
    private long memLast = Long.MAX_VALUE;
    /** Every series seen, by series. */
    private final Map<List<String>, Cand> cands = new HashMap<>();

    /** A series seen: what sorted access read of it, its bounds, its exact totals once resolved. */
    private final class Cand {
        final List<String> series;
        /** The sort value read from list i by sorted access, or -1 (not seen there). */
        final long[] known;
        /** Scanned sum plus the values read; exact once {@link #exact} is set. */
        long lower;
        long[] exact;
        boolean dropped;

        Cand(List<String> series) {
            this.series = series;
            this.known = new long[lists.size()];
            Arrays.fill(known, -1);
            long[] sc = scanned.get(series);
            this.lower = sc == null ? 0 : sc[sortColumn];
        }

        long upper() {
            if (exact != null) {
                return lower;
            }
            long u = lower;
            for (int i = 0; i < known.length; i++) {
                RankedList l = lists.get(i);
                if (known[i] < 0 && !l.done) {
                    u = saturatedAdd(u, l.last);
                }
            }
            return u;
        }
    }

    ThresholdMerge(TopNReads reads, ReportQuery q, QueryPlan plan, Map<LocalDate, Long> indexed, List<RankedPeriods.Period> periods, String tenant) {
        this.reads = reads;
        this.q = q;
        this.plan = plan;
        this.rollup = q.rollup();
        this.indexed = indexed;
        this.periods = periods;
        this.tenant = tenant;
        this.sortColumn = plan.columns().indexOf(q.orderBy().key());
        this.width = plan.columns().size();
        this.deadline = System.nanoTime() + reads.timeout().toNanos();
    }

    /** Reads every part of [from, to) that is not an indexed day with the ordinary plan. */
    void scanSegments(LocalDate firstFull, LocalDate endFull) {
        List<Instant[]> segments = new ArrayList<>();
        Instant start = q.from();
        for (LocalDate d = firstFull; d.isBefore(endFull); d = d.plusDays(1)) {
            if (indexed.containsKey(d)) {
                if (start.isBefore(RankedPeriods.startOf(d))) {
                    segments.add(new Instant[] {start, RankedPeriods.startOf(d)});
                }
                start = RankedPeriods.startOf(d.plusDays(1));
            }
        }
        if (start.isBefore(q.to())) {
            segments.add(new Instant[] {start, q.to()});
        }
        for (Instant[] s : segments) {
            ReportQuery sub = new ReportQuery(rollup, s[0], s[1], ReportGranularity.ALL, q.zone(), q.metrics(), q.filters(),
                    rollup.dimensions(), null, null);
            for (Map.Entry<GroupKey, long[]> e : reads.reader().read(sub, reads.planner().plan(sub)).entrySet()) {
                add(scanned.computeIfAbsent(e.getKey().values(), k -> new long[width]), e.getValue());
            }
        }
        memList = new ArrayList<>();
        for (Map.Entry<List<String>, long[]> e : scanned.entrySet()) {
            if (e.getValue()[sortColumn] > 0) {
                memList.add(e);
            }
        }
        memList.sort((a, b) -> Long.compare(b.getValue()[sortColumn], a.getValue()[sortColumn]));
    }

    /** Runs rounds until the answer is exact; empty, or the reason to fall back. */
    Optional<String> run() {
        for (RankedPeriods.Period p : periods) {
            lists.add(new RankedList(reads, rollup, p, q.orderBy().key(), tenant));
            if (p.month() != null) {
                reads.monthLists().inc();
            }
        }
        int n = q.limit();
        int batch = Math.max(n + n / 2, 16);
        while (true) {
            sortedAccess(batch);
            if (cands.size() > reads.maxCandidates()) {
                return Optional.of("candidates");
            }
            boolean exhausted = memPos >= memList.size() && lists.stream().allMatch(l -> l.done);
            long nth = nthLower(n);
            drop(nth);
            if (exhausted || (nth != Long.MIN_VALUE && nth > tau())) {
                resolve(cands.values().stream().filter(c -> c.exact == null && !c.dropped).toList());
                nth = nthLower(n);
                return nth > 0 ? Optional.empty() : Optional.of("few_positive");
            }
            resolve(bestUnresolved(n));
            batch = Math.min(batch * 2, 10_000);
        }
    }

    /** The most a series not seen yet can have. */
    private long tau() {
        long t = memPos < memList.size() ? memLast : 0;
        for (RankedList l : lists) {
            if (!l.done) {
                t = saturatedAdd(t, l.last);
            }
        }
        return t;
    }

    /** The N-th best lower bound of the series kept, or MIN_VALUE with fewer than N. */
    private long nthLower(int n) {
        PriorityQueue<Long> best = new PriorityQueue<>(n + 1);
        for (Cand c : cands.values()) {
            if (!c.dropped) {
                best.add(c.lower);
                if (best.size() > n) {
                    best.poll();
                }
            }
        }
        return best.size() < n ? Long.MIN_VALUE : best.peek();
    }

    /** Drops the unresolved series whose upper bound is below {@code nth}: they cannot enter nor tie. */
    private void drop(long nth) {
        if (nth == Long.MIN_VALUE) {
            return;
        }
        long n = 0;
        for (Cand c : cands.values()) {
            if (c.exact == null && !c.dropped && c.upper() < nth) {
                c.dropped = true;
                n++;
            }
        }
        reads.pruned().add(n);
    }

    /** The N unresolved series with the best lower bounds. */
    private List<Cand> bestUnresolved(int n) {
        PriorityQueue<Cand> best = new PriorityQueue<>(n + 1, (a, b) -> Long.compare(a.lower, b.lower));
        for (Cand c : cands.values()) {
            if (c.exact == null && !c.dropped) {
                best.add(c);
                if (best.size() > n) {
                    best.poll();
                }
            }
        }
        return new ArrayList<>(best);
    }

    private Cand cand(List<String> series) {
        return cands.computeIfAbsent(series, Cand::new);
    }

    /** Next {@code batch} entries of every list, folded into the series' bounds. */
    private void sortedAccess(int batch) {
        List<Future<List<RankedIndexCodec.Entry>>> futures = new ArrayList<>();
        List<Integer> reading = new ArrayList<>();
        for (int i = 0; i < lists.size(); i++) {
            RankedList l = lists.get(i);
            if (!l.done) {
                reading.add(i);
                futures.add(reads.executor().submit(() -> l.next(batch)));
            }
        }
        for (int f = 0; f < futures.size(); f++) {
            int list = reading.get(f);
            for (RankedIndexCodec.Entry e : ReadFailure.await(futures.get(f), deadline - System.nanoTime(), reads.timeout())) {
                Cand c = cand(e.values());
                if (c.exact == null && !c.dropped && c.known[list] < 0) {
                    c.known[list] = e.value();
                    c.lower += e.value();
                }
            }
        }
        int end = Math.min(memList.size(), memPos + batch);
        for (; memPos < end; memPos++) {
            Map.Entry<List<String>, long[]> e = memList.get(memPos);
            memLast = e.getValue()[sortColumn];
            cand(e.getKey());
        }
    }

    /**
     * Exact totals of {@code series}: scanned sums plus each list's cells, by random access
     * where sorted access did not already read them (only the sort metric asked) or where the
     * list is exhausted without them (they have 0 there).
     */
    private void resolve(List<Cand> series) {
        if (series.isEmpty()) {
            return;
        }
        List<Get> dayGets = new ArrayList<>();
        List<Cand> dayOwners = new ArrayList<>();
        List<Get> monthGets = new ArrayList<>();
        List<Cand> monthOwners = new ArrayList<>();
        for (Cand c : series) {
            long[] sum = new long[width];
            long[] sc = scanned.get(c.series);
            if (sc != null) {
                add(sum, sc);
            }
            c.exact = sum;
            for (int i = 0; i < lists.size(); i++) {
                RankedList l = lists.get(i);
                if (width == 1 && c.known[i] >= 0) {
                    sum[0] += c.known[i]; // width 1: the sort metric is the only column
                } else if (width > 1 || !l.done) {
                    if (l.period.month() == null) {
                        Get g = new Get(reads.codec().counterKey(rollup, Granularity.DAY, l.period.first().toEpochDay() * 1440, c.series));
                        g.addFamily(TableLayout.COUNTER_FAMILY); // base and writer cells (CounterValues)
                        dayGets.add(g);
                        dayOwners.add(c);
                    } else {
                        Get g = new Get(RankedIndexCodec.monthSeriesKey(rollup, l.period.month(), l.period.generation(), c.series));
                        plan.columns().forEach(col -> g.addColumn(TableLayout.RANKED_FAMILY, Bytes.toBytes(col)));
                        monthGets.add(g);
                        monthOwners.add(c);
                    }
                }
            }
        }
        List<Future<Result[]>> dayFutures = submit(reads.layout().counterTable(rollup), dayGets);
        List<Future<Result[]>> monthFutures = submit(reads.layout().rankedIndexTable(), monthGets);
        reads.randomGets().add(dayGets.size() + monthGets.size());
        collect(dayFutures, dayOwners);
        collect(monthFutures, monthOwners);
        for (Cand c : series) {
            c.lower = c.exact[sortColumn];
        }
    }

    private List<Future<Result[]>> submit(TableName table, List<Get> gets) {
        List<Future<Result[]>> futures = new ArrayList<>();
        for (int i = 0; i < gets.size(); i += GET_CHUNK) {
            List<Get> chunk = gets.subList(i, Math.min(gets.size(), i + GET_CHUNK));
            futures.add(reads.executor().submit(() -> {
                try (Table t = reads.connection().getTable(table)) {
                    return t.get(chunk);
                }
            }));
        }
        return futures;
    }

    private void collect(List<Future<Result[]>> futures, List<Cand> owners) {
        byte[][] quals = plan.columns().stream().map(Bytes::toBytes).toArray(byte[][]::new);
        for (int f = 0; f < futures.size(); f++) {
            Result[] results = ReadFailure.await(futures.get(f), deadline - System.nanoTime(), reads.timeout());
            for (int i = 0; i < results.length; i++) {
                long[] sum = owners.get(f * GET_CHUNK + i).exact;
                CounterValues.addTo(results[i], quals, sum); // one family per result: counter rows or month-series rows
            }
        }
    }

    List<ReportRow> rows() {
        int[] idx = q.groupBy().stream().mapToInt(rollup.dimensions()::indexOf).toArray();
        List<ReportRow> rows = new ArrayList<>();
        for (Cand c : cands.values()) {
            if (c.exact == null || c.dropped) {
                continue;
            }
            List<String> group = new ArrayList<>(idx.length);
            for (int i : idx) {
                group.add(c.series.get(i));
            }
            rows.add(ReportEngine.row(reads.cube(), q, plan, new GroupKey(0, group), c.exact));
        }
        rows.sort(ReportEngine.order(q));
        return List.copyOf(rows.subList(0, Math.min(rows.size(), q.limit())));
    }

    void close() {
        lists.forEach(RankedList::close);
    }

    private static void add(long[] sum, long[] add) {
        for (int i = 0; i < sum.length; i++) {
            sum[i] += add[i];
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }
}
