package io.adreport.report.query;

import io.adreport.schema.time.UtcDay;
import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import io.adreport.http.ReadFailure;

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
 */
public final class RankedTopN {
    private static final byte[] F = TableLayout.RANKED_FAMILY;
    private static final byte[] GENERATION = RankedIndexCodec.GENERATION_QUALIFIER;
    private static final byte[] DAY_GENERATIONS = RankedIndexCodec.DAY_GENERATIONS_QUALIFIER;
    private static final int GET_CHUNK = 500;

    private final Cube cube;
    private final Connection connection;
    private final TableLayout layout;
    private final RowKeyCodec codec;
    private final DayStatusStore meta;
    private final QueryPlanner planner;
    private final CounterReader reader;
    private final ExecutorService executor;
    private final Duration timeout;
    private final int maxCandidates;
    private final Metrics metrics;
    private final Map<String, Metrics.Counter> fallbacks = new java.util.concurrent.ConcurrentHashMap<>();
    private final Metrics.Counter listEntriesRead;
    private final Metrics.Counter randomGets;
    private final Metrics.Counter pruned;
    private final Metrics.Counter monthLists;

    public RankedTopN(Cube cube, Connection connection, TableLayout layout, DayStatusStore meta, QueryPlanner planner,
                      CounterReader reader, ExecutorService executor, Duration timeout, int maxCandidates, Metrics metrics) {
        this.cube = cube;
        this.connection = connection;
        this.layout = layout;
        this.codec = new RowKeyCodec(cube);
        this.meta = meta;
        this.planner = planner;
        this.reader = reader;
        this.executor = executor;
        this.timeout = timeout;
        this.maxCandidates = maxCandidates;
        this.metrics = metrics;
        this.listEntriesRead = metrics.counter("adreport_report_topn_list_entries_read_total", "Ranked index entries read by sorted access");
        this.randomGets = metrics.counter("adreport_report_topn_random_gets_total", "Counter cells read by random access for top-N candidates");
        this.pruned = metrics.counter("adreport_report_topn_pruned_total",
                "Top-N candidates dropped by their upper bound without random access");
        this.monthLists = metrics.counter("adreport_report_topn_month_lists_total",
                "Month lists merged by ranked top-N reports (each stands for every day of a UTC month)");
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
        if (!startOf(firstFull).equals(q.from())) {
            firstFull = firstFull.plusDays(1);
        }
        LocalDate endFull = UtcDay.dateOf(q.to());
        if (!firstFull.isBefore(endFull)) {
            return fallback("no_utc_day");
        }
        Map<LocalDate, Long> indexed = indexedDays(rollup, firstFull, endFull);
        if (indexed.isEmpty()) {
            return fallback("not_indexed");
        }
        String tenant = rollup.hasTenant() ? q.filters().get(rollup.tenant()) : null;
        Merge m = new Merge(q, plan, indexed, periods(rollup, indexed, firstFull, endFull), tenant);
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

    /** Days in [from, to) that are reconciled and have a published index, with its generation. */
    private Map<LocalDate, Long> indexedDays(Rollup rollup, LocalDate from, LocalDate toExclusive) {
        Map<LocalDate, Long> gens = new HashMap<>();
        KeyRange range = RankedIndexCodec.pointerRange(rollup, from, toExclusive);
        try (Table t = connection.getTable(layout.rankedIndexTable());
             ResultScanner rs = t.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop()).addColumn(F, GENERATION))) {
            for (Result r : rs) {
                gens.put(RankedIndexCodec.pointerDay(r.getRow()), Bytes.toLong(r.getValue(F, GENERATION)));
            }
        } catch (IOException e) {
            throw new ReadFailure("reading the ranked index failed: " + e, e);
        }
        Map<LocalDate, Long> out = new LinkedHashMap<>();
        for (DayState d : meta.days(from, toExclusive.minusDays(1)).values()) {
            if (d.status() == DayStatus.RECONCILED && gens.containsKey(d.day())) {
                out.put(d.day(), gens.get(d.day()));
            }
        }
        return out;
    }

    /**
     * The lists to merge: a current month list for every whole UTC month of [from, to) whose days
     * are all indexed, one day list for every other indexed day.
     */
    private List<Period> periods(Rollup rollup, Map<LocalDate, Long> indexed, LocalDate from, LocalDate toExclusive) {
        List<YearMonth> whole = new ArrayList<>();
        for (YearMonth m = YearMonth.from(from); !m.atDay(1).isAfter(toExclusive); m = m.plusMonths(1)) {
            if (!m.atDay(1).isBefore(from) && m.atEndOfMonth().isBefore(toExclusive) && allIndexed(m, indexed)) {
                whole.add(m);
            }
        }
        Map<YearMonth, Long> months = new HashMap<>();
        if (!whole.isEmpty()) {
            List<Get> gets = whole.stream().map(m -> new Get(RankedIndexCodec.monthPointerKey(rollup, m)).addFamily(F)).toList();
            try (Table t = connection.getTable(layout.rankedIndexTable())) {
                Result[] rs = t.get(gets);
                for (int i = 0; i < rs.length; i++) {
                    byte[] g = rs[i].getValue(F, GENERATION);
                    byte[] d = rs[i].getValue(F, DAY_GENERATIONS);
                    if (g != null && d != null && Arrays.equals(RankedIndexCodec.decodeDayGenerations(d), dayGenerations(whole.get(i), indexed))) {
                        months.put(whole.get(i), Bytes.toLong(g));
                    }
                }
            } catch (IOException e) {
                throw new ReadFailure("reading the ranked index failed: " + e, e);
            }
        }
        List<Period> out = new ArrayList<>();
        months.forEach((m, g) -> out.add(new Period(m.atDay(1), m, g)));
        for (Map.Entry<LocalDate, Long> e : indexed.entrySet()) {
            if (!months.containsKey(YearMonth.from(e.getKey()))) {
                out.add(new Period(e.getKey(), null, e.getValue()));
            }
        }
        return out;
    }

    private static boolean allIndexed(YearMonth m, Map<LocalDate, Long> indexed) {
        for (LocalDate d = m.atDay(1); !d.isAfter(m.atEndOfMonth()); d = d.plusDays(1)) {
            if (!indexed.containsKey(d)) {
                return false;
            }
        }
        return true;
    }

    private static long[] dayGenerations(YearMonth m, Map<LocalDate, Long> indexed) {
        long[] out = new long[m.lengthOfMonth()];
        for (int i = 0; i < out.length; i++) {
            out[i] = indexed.get(m.atDay(i + 1));
        }
        return out;
    }

    private static Instant startOf(LocalDate day) {
        return day.atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** One ranked list: a reconciled day ({@code month} null) or a whole reconciled month. */
    private record Period(LocalDate first, YearMonth month, long generation) {
    }

    /** One report's merge. Request thread only; read tasks return values. */
    private final class Merge {
        private final ReportQuery q;
        private final QueryPlan plan;
        private final Rollup rollup;
        private final Map<LocalDate, Long> indexed;
        private final List<Period> periods;
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

        Merge(ReportQuery q, QueryPlan plan, Map<LocalDate, Long> indexed, List<Period> periods, String tenant) {
            this.q = q;
            this.plan = plan;
            this.rollup = q.rollup();
            this.indexed = indexed;
            this.periods = periods;
            this.tenant = tenant;
            this.sortColumn = plan.columns().indexOf(q.orderBy().key());
            this.width = plan.columns().size();
            this.deadline = System.nanoTime() + timeout.toNanos();
        }

        /** Reads every part of [from, to) that is not an indexed day with the ordinary plan. */
        void scanSegments(LocalDate firstFull, LocalDate endFull) {
            List<Instant[]> segments = new ArrayList<>();
            Instant start = q.from();
            for (LocalDate d = firstFull; d.isBefore(endFull); d = d.plusDays(1)) {
                if (indexed.containsKey(d)) {
                    if (start.isBefore(startOf(d))) {
                        segments.add(new Instant[] {start, startOf(d)});
                    }
                    start = startOf(d.plusDays(1));
                }
            }
            if (start.isBefore(q.to())) {
                segments.add(new Instant[] {start, q.to()});
            }
            for (Instant[] s : segments) {
                ReportQuery sub = new ReportQuery(rollup, s[0], s[1], ReportGranularity.ALL, q.zone(), q.metrics(), q.filters(),
                        rollup.dimensions(), null, null);
                for (Map.Entry<GroupKey, long[]> e : reader.read(sub, planner.plan(sub)).entrySet()) {
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
            for (Period p : periods) {
                lists.add(new RankedList(p));
                if (p.month() != null) {
                    monthLists.inc();
                }
            }
            int n = q.limit();
            int batch = Math.max(n + n / 2, 16);
            while (true) {
                sortedAccess(batch);
                if (cands.size() > maxCandidates) {
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
            pruned.add(n);
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
                    futures.add(executor.submit(() -> l.next(batch)));
                }
            }
            for (int f = 0; f < futures.size(); f++) {
                int list = reading.get(f);
                for (RankedIndexCodec.Entry e : ReadFailure.await(futures.get(f), deadline - System.nanoTime(), timeout)) {
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
                            Get g = new Get(codec.counterKey(rollup, Granularity.DAY, l.period.first().toEpochDay() * 1440, c.series));
                            g.addFamily(TableLayout.COUNTER_FAMILY); // base and writer cells (CounterValues)
                            dayGets.add(g);
                            dayOwners.add(c);
                        } else {
                            Get g = new Get(RankedIndexCodec.monthSeriesKey(rollup, l.period.month(), l.period.generation(), c.series));
                            plan.columns().forEach(col -> g.addColumn(F, Bytes.toBytes(col)));
                            monthGets.add(g);
                            monthOwners.add(c);
                        }
                    }
                }
            }
            List<Future<Result[]>> dayFutures = submit(layout.counterTable(rollup), dayGets);
            List<Future<Result[]>> monthFutures = submit(layout.rankedIndexTable(), monthGets);
            randomGets.add(dayGets.size() + monthGets.size());
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
                futures.add(executor.submit(() -> {
                    try (Table t = connection.getTable(table)) {
                        return t.get(chunk);
                    }
                }));
            }
            return futures;
        }

        private void collect(List<Future<Result[]>> futures, List<Cand> owners) {
            byte[][] quals = plan.columns().stream().map(Bytes::toBytes).toArray(byte[][]::new);
            for (int f = 0; f < futures.size(); f++) {
                Result[] results = ReadFailure.await(futures.get(f), deadline - System.nanoTime(), timeout);
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
                rows.add(ReportEngine.row(cube, q, plan, new GroupKey(0, group), c.exact));
            }
            rows.sort(ReportEngine.order(q));
            return List.copyOf(rows.subList(0, Math.min(rows.size(), q.limit())));
        }

        void close() {
            lists.forEach(RankedList::close);
        }

        /** Sorted access to one day's or month's list: an open scanner over the published generation. */
        private final class RankedList {
            final Period period;
            private final byte[] prefix;
            private final KeyRange range;
            private ResultScanner scanner;
            private Table table;
            long last = Long.MAX_VALUE;
            boolean done;

            RankedList(Period period) {
                this.period = period;
                String metric = q.orderBy().key();
                this.range = period.month() == null
                        ? RankedIndexCodec.listRange(rollup, period.first(), period.generation(), metric, tenant)
                        : RankedIndexCodec.monthListRange(rollup, period.month(), period.generation(), metric, tenant);
                this.prefix = range.start();
            }

            List<RankedIndexCodec.Entry> next(int n) throws IOException {
                if (scanner == null) {
                    table = connection.getTable(layout.rankedIndexTable());
                    scanner = table.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop())
                            .setCaching(Math.min(n, 10_000)).addFamily(F));
                }
                Result[] rs = scanner.next(n);
                List<RankedIndexCodec.Entry> out = new ArrayList<>(rs.length);
                for (Result r : rs) {
                    RankedIndexCodec.Entry e = RankedIndexCodec.parseEntry(rollup, prefix, r.getRow());
                    out.add(e);
                    last = e.value();
                }
                listEntriesRead.add(rs.length);
                if (rs.length < n) {
                    done = true;
                }
                return out;
            }

            void close() {
                try {
                    if (scanner != null) {
                        scanner.close();
                    }
                    if (table != null) {
                        table.close();
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
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
