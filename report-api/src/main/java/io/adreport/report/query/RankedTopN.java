package io.adreport.report.query;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.MetaStore;
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
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Exact top-N from the ranked index of reconciled days ({@link RankedIndexCodec}), reading only
 * what can still enter the answer.
 *
 * <p><b>When.</b> A report whose shape the index answers exactly: granularity {@code all}, a
 * {@code limit}, ordered descending by a <i>stored</i> metric (a derived metric such as ctr has no
 * bound from its parts' lists and falls back), filtered at most on the rollup's tenant (the
 * tenant-prefixed lists), grouped by every dimension not filtered, and covering at least one
 * whole reconciled UTC day whose index is published. Anything else returns empty and the engine
 * reads as before; {@code adreport_report_topn_fallback_total{reason}} says why.
 *
 * <p><b>How (Fagin's threshold algorithm, batched).</b> The range is cut into indexed days
 * (reconciled UTC days with a published index) and scanned segments (live or closing days and
 * partial edge days, e.g. a Kolkata midnight): the segments are read by the ordinary plan into
 * exact per-series sums and sorted into one in-memory list. Each round reads the next batch of
 * every day's list (sorted access, one open scanner per day) and of the in-memory list; every
 * series seen for the first time is resolved exactly by random access: Gets of its DAY counter
 * cells for all indexed days, plus its scanned sums. The threshold tau is the sum of the last
 * values read from the lists not yet exhausted: a series not seen yet has at most that much (at
 * most the last value in an unexhausted list, 0 in an exhausted one, since lists hold every
 * positive value). It stops when the N-th best resolved value is <i>strictly</i> above tau, so no
 * unseen series can enter or tie, or when every list is exhausted. Batches double each round.
 *
 * <p><b>Ties and zeros.</b> Rows are ordered exactly as {@link ReportEngine#order} orders them:
 * value descending, then groupBy values ascending. When fewer than N series have a positive
 * value, the engine's answer also lists series whose value is zero; the index does not list
 * those, so such a report falls back (reason {@code few_positive}).
 *
 * <p><b>Consistency.</b> A day is used only when its status is {@code reconciled}: a re-run marks
 * it {@code closing} before it touches counters, so its counters and its published index agree.
 * Superseded generations survive one re-run (see {@code RankedIndexWriter}).
 *
 * <p><b>Bounds and concurrency.</b> At most {@code maxCandidates} resolved series (then it falls
 * back, reason {@code candidates}); reads run on the report executor; state is per call.
 */
public final class RankedTopN {
    private static final byte[] F = TableLayout.RANKED_FAMILY;
    private static final byte[] GENERATION = Bytes.toBytes("g");
    private static final int GET_CHUNK = 500;

    private final Cube cube;
    private final Connection connection;
    private final TableLayout layout;
    private final RowKeyCodec codec;
    private final MetaStore meta;
    private final QueryPlanner planner;
    private final CounterReader reader;
    private final ExecutorService executor;
    private final Duration timeout;
    private final int maxCandidates;
    private final Metrics metrics;
    private final Map<String, Metrics.Counter> fallbacks = new java.util.concurrent.ConcurrentHashMap<>();
    private final Metrics.Counter listEntriesRead;
    private final Metrics.Counter randomGets;

    public RankedTopN(Cube cube, Connection connection, TableLayout layout, MetaStore meta, QueryPlanner planner,
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
        LocalDate firstFull = LocalDate.ofInstant(q.from(), ZoneOffset.UTC);
        if (!startOf(firstFull).equals(q.from())) {
            firstFull = firstFull.plusDays(1);
        }
        LocalDate endFull = LocalDate.ofInstant(q.to(), ZoneOffset.UTC);
        if (!firstFull.isBefore(endFull)) {
            return fallback("no_utc_day");
        }
        Map<LocalDate, Long> indexed = indexedDays(rollup, firstFull, endFull);
        if (indexed.isEmpty()) {
            return fallback("not_indexed");
        }
        String tenant = rollup.hasTenant() ? q.filters().get(rollup.tenant()) : null;
        Merge m = new Merge(q, plan, indexed, tenant);
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
        for (MetaStore.DayState d : meta.days(from, toExclusive.minusDays(1)).values()) {
            if (d.status() == MetaStore.DayStatus.RECONCILED && gens.containsKey(d.day())) {
                out.put(d.day(), gens.get(d.day()));
            }
        }
        return out;
    }

    private static Instant startOf(LocalDate day) {
        return day.atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** One report's threshold merge. Request thread only; read tasks return values. */
    private final class Merge {
        private final ReportQuery q;
        private final QueryPlan plan;
        private final Rollup rollup;
        private final Map<LocalDate, Long> indexed;
        private final String tenant;
        private final int sortColumn;
        private final int width;
        private final long deadline;
        /** Exact sums of the scanned segments, by series (rollup-order values). */
        private final Map<List<String>, long[]> scanned = new HashMap<>();
        private final List<DayList> lists = new ArrayList<>();
        private List<Map.Entry<List<String>, long[]>> memList;
        private int memPos;
        private long memLast = Long.MAX_VALUE;
        /** Exact totals of every series seen, by series. */
        private final Map<List<String>, long[]> resolved = new HashMap<>();
        /**
         * When the report reads only the sort metric, the values sorted access already read, by
         * series and day list index: random access skips those cells (the list value is the cell).
         */
        private final Map<List<String>, Map<Integer, Long>> seen;

        Merge(ReportQuery q, QueryPlan plan, Map<LocalDate, Long> indexed, String tenant) {
            this.q = q;
            this.plan = plan;
            this.rollup = q.rollup();
            this.indexed = indexed;
            this.tenant = tenant;
            this.sortColumn = plan.columns().indexOf(q.orderBy().key());
            this.width = plan.columns().size();
            this.deadline = System.nanoTime() + timeout.toNanos();
            this.seen = width == 1 ? new HashMap<>() : null;
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
            for (Map.Entry<LocalDate, Long> e : indexed.entrySet()) {
                lists.add(new DayList(e.getKey(), e.getValue()));
            }
            int n = q.limit();
            int batch = Math.max(n + n / 2, 16);
            while (true) {
                List<List<String>> fresh = sortedAccess(batch);
                resolve(fresh);
                if (resolved.size() > maxCandidates) {
                    return Optional.of("candidates");
                }
                boolean allDone = memPos >= memList.size() && lists.stream().allMatch(l -> l.done);
                long nth = nthBest(n);
                if (allDone) {
                    return nth > 0 ? Optional.empty() : Optional.of("few_positive");
                }
                if (nth != Long.MIN_VALUE && nth > tau()) {
                    return Optional.empty();
                }
                batch = Math.min(batch * 2, 10_000);
            }
        }

        private long tau() {
            long t = memPos < memList.size() ? memLast : 0;
            for (DayList l : lists) {
                if (!l.done) {
                    t = saturatedAdd(t, l.last);
                }
            }
            return t;
        }

        /** The N-th best resolved value, or MIN_VALUE with fewer than N resolved. */
        private long nthBest(int n) {
            if (resolved.size() < n) {
                return Long.MIN_VALUE;
            }
            long[] v = new long[resolved.size()];
            int i = 0;
            for (long[] s : resolved.values()) {
                v[i++] = s[sortColumn];
            }
            Arrays.sort(v);
            return v[v.length - n];
        }

        /** Next {@code batch} entries of every list; the series not resolved yet. */
        private List<List<String>> sortedAccess(int batch) {
            List<Future<List<RankedIndexCodec.Entry>>> futures = new ArrayList<>();
            List<DayList> reading = new ArrayList<>();
            for (DayList l : lists) {
                if (!l.done) {
                    reading.add(l);
                    futures.add(executor.submit(() -> l.next(batch)));
                }
            }
            java.util.Set<List<String>> fresh = new java.util.LinkedHashSet<>();
            for (int i = 0; i < futures.size(); i++) {
                int list = lists.indexOf(reading.get(i));
                for (RankedIndexCodec.Entry e : ReadFailure.await(futures.get(i), deadline - System.nanoTime(), timeout)) {
                    if (!resolved.containsKey(e.values())) {
                        fresh.add(e.values());
                        if (seen != null) {
                            seen.computeIfAbsent(e.values(), k -> new HashMap<>()).put(list, e.value());
                        }
                    }
                }
            }
            int end = Math.min(memList.size(), memPos + batch);
            for (; memPos < end; memPos++) {
                Map.Entry<List<String>, long[]> e = memList.get(memPos);
                memLast = e.getValue()[sortColumn];
                if (!resolved.containsKey(e.getKey())) {
                    fresh.add(e.getKey());
                }
            }
            if (seen != null) {
                seen.keySet().retainAll(fresh); // values of resolved series are not needed again
            }
            return new ArrayList<>(fresh);
        }

        /** Exact totals of {@code series}: their DAY cells of every indexed day plus their scanned sums. */
        private void resolve(List<List<String>> series) {
            List<Get> gets = new ArrayList<>(series.size() * indexed.size());
            List<List<String>> owners = new ArrayList<>(gets.size());
            for (List<String> s : series) {
                long[] sum = new long[width];
                long[] sc = scanned.get(s);
                if (sc != null) {
                    add(sum, sc);
                }
                resolved.put(s, sum);
                Map<Integer, Long> known = seen == null ? Map.of() : seen.getOrDefault(s, Map.of());
                int list = -1;
                for (LocalDate d : indexed.keySet()) {
                    Long v = known.get(++list);
                    if (v != null) {
                        sum[0] += v; // width 1: the sort metric is the only column
                        continue;
                    }
                    Get g = new Get(codec.counterKey(rollup, Granularity.DAY, d.toEpochDay() * 1440, s));
                    for (String c : plan.columns()) {
                        g.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes(c));
                    }
                    gets.add(g);
                    owners.add(s);
                }
            }
            List<Future<Result[]>> futures = new ArrayList<>();
            for (int i = 0; i < gets.size(); i += GET_CHUNK) {
                List<Get> chunk = gets.subList(i, Math.min(gets.size(), i + GET_CHUNK));
                futures.add(executor.submit(() -> {
                    try (Table t = connection.getTable(layout.counterTable(rollup))) {
                        return t.get(chunk);
                    }
                }));
            }
            randomGets.add(gets.size());
            byte[][] quals = plan.columns().stream().map(Bytes::toBytes).toArray(byte[][]::new);
            for (int f = 0; f < futures.size(); f++) {
                Result[] results = ReadFailure.await(futures.get(f), deadline - System.nanoTime(), timeout);
                for (int i = 0; i < results.length; i++) {
                    long[] sum = resolved.get(owners.get(f * GET_CHUNK + i));
                    for (int c = 0; c < width; c++) {
                        byte[] v = results[i].getValue(TableLayout.COUNTER_FAMILY, quals[c]);
                        if (v != null && v.length == 8) {
                            sum[c] += Bytes.toLong(v);
                        }
                    }
                }
            }
        }

        List<ReportRow> rows() {
            int[] idx = q.groupBy().stream().mapToInt(rollup.dimensions()::indexOf).toArray();
            List<ReportRow> rows = new ArrayList<>(resolved.size());
            for (Map.Entry<List<String>, long[]> e : resolved.entrySet()) {
                List<String> group = new ArrayList<>(idx.length);
                for (int i : idx) {
                    group.add(e.getKey().get(i));
                }
                rows.add(ReportEngine.row(cube, q, plan, new GroupKey(0, group), e.getValue()));
            }
            rows.sort(ReportEngine.order(q));
            return List.copyOf(rows.subList(0, Math.min(rows.size(), q.limit())));
        }

        void close() {
            lists.forEach(DayList::close);
        }

        /** Sorted access to one day's list: an open scanner over the published generation. */
        private final class DayList {
            private final byte[] prefix;
            private final KeyRange range;
            private ResultScanner scanner;
            private Table table;
            long last = Long.MAX_VALUE;
            boolean done;

            DayList(LocalDate day, long gen) {
                this.range = RankedIndexCodec.listRange(rollup, day, gen, q.orderBy().key(), tenant);
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
