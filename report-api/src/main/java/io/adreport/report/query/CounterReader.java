package io.adreport.report.query;

import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.hbase.AsyncReads;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.util.Bytes;
import io.adreport.http.QueryException;
import io.adreport.http.ReadFailure;

/**
 * Reads the counter rows of a {@link QueryPlan} and sums them into (output bucket, groupBy
 * values) cells.
 *
 * <p><b>Reads.</b> A fixed series (every dimension filtered) reads exactly the keys the codec
 * computes, salt included, in chunks of {@value #GET_CHUNK}, each chunk one skip-scan of its
 * salt bucket through the asynchronous client (see {@code Job.get}). Anything else is one scan
 * per salt bucket over [fromMinute, toMinute) of the stored granularity — the salt hashes the series, so
 * any series can be in any bucket — run in parallel on the shared bounded executor and merged.
 * Never a full-table scan: every scan is bounded by its bucket's time range. When the leading
 * dimensions are fixed (always the tenant for a tenant key) a server-side row filter at
 * {@link RowKeyCodec#COUNTER_VALUES_OFFSET} drops other rows in the region server; remaining
 * filters are applied here (both by {@link RowDecoder}).
 *
 * <p><b>Bounds.</b> Rows read by all tasks of one report are counted; past
 * {@code maxRowsScanned} every task stops and the report fails with a {@link QueryException}.
 * Memory is bounded by that count (cells ≤ rows read).
 *
 * <p><b>Concurrency.</b> Stateless between calls; each task fills its own map, and only the
 * request thread merges. The executor is owned by the caller (one per process).
 *
 * <p><b>Live counts.</b> With {@link LiveReads}, a report also sees what the aggregators have
 * counted but not flushed yet ({@code LiveCounts} has the protocol): before reading it asks each
 * live aggregator for its writer id; while reading it keeps, per row, the stored cells of those
 * writers (a stash bounded like the rows read); after reading it asks for their current totals of
 * the same ranges and adds, per row and writer, the total minus the stored cell. Rows of days
 * already closed are left out (an aggregator that missed the close could still answer them;
 * {@link LiveDays#closed} reads meta after the answers), so a reconciled day reads as stored.
 * A fixed series instead asks at the same time as it reads, and only for the keys of days still
 * live ({@link #readSeries}); {@link LiveMerge} does the merge either way.
 *
 * <p><b>Failure.</b> An HBase error or a read slower than the timeout becomes a
 * {@link ReadFailure} (503); outstanding tasks are cancelled.
 */
public final class CounterReader {
    static final int GET_CHUNK = 1000;
    static final int SCAN_CACHING = 1000;

    private final Connection connection;
    private final AsyncReads async;
    private final TableLayout layout;
    private final RowKeyCodec codec;
    private final ExecutorService executor;
    private final long maxRowsScanned;
    private final Duration timeout;
    private final Metrics.Histogram getLatency;
    private final Metrics.Histogram scanLatency;
    private final Metrics.Counter rowsRead;
    private final LiveReads live;

    public CounterReader(Connection connection, AsyncReads async, TableLayout layout, ExecutorService executor,
                         long maxRowsScanned, Duration timeout, Metrics metrics) {
        this(connection, async, layout, executor, maxRowsScanned, timeout, metrics, LiveReads.OFF);
    }

    /** As above, adding the aggregators' live counts to every report ({@link LiveReads}). */
    public CounterReader(Connection connection, AsyncReads async, TableLayout layout, ExecutorService executor,
                         long maxRowsScanned, Duration timeout, Metrics metrics, LiveReads live) {
        this.live = live;
        this.connection = connection;
        this.async = async;
        this.layout = layout;
        this.codec = new RowKeyCodec(layout.cube());
        this.executor = executor;
        this.maxRowsScanned = maxRowsScanned;
        this.timeout = timeout;
        String help = "Latency of HBase reads of the report API, seconds";
        this.getLatency = metrics.histogram("adreport_report_hbase_read_seconds", help, Metrics.LATENCY_BUCKETS, "kind", "multiget");
        this.scanLatency = metrics.histogram("adreport_report_hbase_read_seconds", help, Metrics.LATENCY_BUCKETS, "kind", "scan");
        this.rowsRead = metrics.counter("adreport_report_rows_read_total", "Counter rows read by reports");
    }

    /** Sums of {@code plan.columns()} per (bucket, groupBy values), live counts included. */
    public Map<GroupKey, long[]> read(ReportQuery q, QueryPlan plan) {
        if (plan.pointLookup()) {
            return readSeries(q, plan);
        }
        Map<String, long[]> writers = live.writers(q.rollup().name()); // before the read: see LiveCounts
        Job job = new Job(q, plan, writers);
        List<KeyRange> ranges = new ArrayList<>();
        List<Callable<Map<GroupKey, long[]>>> tasks = new ArrayList<>();
        if (q.singleSeries()) {
            int salt = codec.counterSalt(q.rollup(), seriesValues(q));
            tasks.add(() -> job.scan(salt));
            ranges.add(job.range(salt));
        } else {
            for (int salt = 0; salt < codec.saltBuckets(); salt++) {
                int s = salt;
                tasks.add(() -> job.scan(s));
                ranges.add(job.range(s));
            }
        }
        Map<GroupKey, long[]> out = runAndMerge(tasks, job, plan.columns().size());
        if (!writers.isEmpty()) {
            job.live.add(out, live.totals(writers, new LiveCounts.Request(q.rollup().name(), ranges, job.decoder.fixedPrefix())));
        }
        return out;
    }

    /**
     * A fixed series: its exact keys, and the live counts of the keys of days still live asked
     * while the read is under way ({@code LiveCounts}, "Asking while reading"): the HBase read
     * goes out first (asynchronous), then the aggregators are asked ({@link LiveReads#askHere}:
     * the first on this thread, so no hand-off to a client thread sits on the report's path),
     * then the read is collected. The report waits for about the slower of the two, not their
     * sum. Keys of days known closed are not asked for.
     */
    private Map<GroupKey, long[]> readSeries(ReportQuery q, QueryPlan plan) {
        Job job = new Job(q, plan, Map.of());
        List<byte[]> keys = new ArrayList<>();
        List<String> values = seriesValues(q);
        for (long m = plan.fromMinute(); m < plan.toMinute(); m += plan.stored().minutes()) {
            keys.add(codec.counterKey(q.rollup(), plan.stored(), m, values));
        }
        LiveCounts.Request request = null;
        if (!keys.isEmpty() && live.anyToAsk()) { // no aggregator: not even a look at the days
            long firstLive = live.days().firstLive(UtcDay.epochDayOfBucketMinute(plan.fromMinute()),
                    UtcDay.epochDayOfBucketMinute(plan.toMinute() - 1));
            List<KeyRange> ranges = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                long minute = plan.fromMinute() + (long) i * plan.stored().minutes();
                if (UtcDay.epochDayOfBucketMinute(minute) >= firstLive) {
                    ranges.add(new KeyRange(keys.get(i), Bytes.add(keys.get(i), new byte[] {0})));
                }
            }
            if (!ranges.isEmpty()) {
                request = new LiveCounts.Request(q.rollup().name(), ranges, job.decoder.fixedPrefix());
            }
        }
        Job.Reads reads = job.start(keys);
        Map<String, LiveCounts.Answer> answers = request == null ? Map.of() : live.askHere(request);
        List<Result> kept = request == null ? null : new ArrayList<>();
        Map<GroupKey, long[]> out = job.collect(reads, kept);
        if (!answers.isEmpty()) {
            Map<String, long[]> again = new HashMap<>(); // aggregators that do not name their next writer: the two steps' way
            List<LiveCounts.Answer> merged = job.live.acceptRacing(answers, kept, again);
            merged.addAll(live.totals(again, request));
            job.live.add(out, merged);
        }
        return out;
    }

    private Map<GroupKey, long[]> runAndMerge(List<Callable<Map<GroupKey, long[]>>> tasks, Job job, int width) {
        List<Future<Map<GroupKey, long[]>>> futures = new ArrayList<>(tasks.size());
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            for (Callable<Map<GroupKey, long[]>> t : tasks) {
                futures.add(executor.submit(t));
            }
            Map<GroupKey, long[]> merged = new HashMap<>();
            for (Future<Map<GroupKey, long[]>> f : futures) {
                Map<GroupKey, long[]> part = ReadFailure.await(f, deadline - System.nanoTime(), timeout);
                for (Map.Entry<GroupKey, long[]> e : part.entrySet()) {
                    long[] sum = merged.computeIfAbsent(e.getKey(), k -> new long[width]);
                    long[] add = e.getValue();
                    for (int i = 0; i < width; i++) {
                        sum[i] += add[i];
                    }
                }
            }
            return merged;
        } finally {
            job.stop();
            futures.forEach(f -> f.cancel(true));
        }
    }

    /** Values of a fully fixed series, in rollup order. */
    private static List<String> seriesValues(ReportQuery q) {
        return q.rollup().dimensions().stream().map(q.filters()::get).toList();
    }

    /**
     * The state one report's read tasks share: the row budget, the row decoder, and the stored
     * cells of the live writers (by row), for the live merge.
     */
    private final class Job {
        private final ReportQuery q;
        private final QueryPlan plan;
        private final RowDecoder decoder;
        private final AtomicLong rows = new AtomicLong();
        private final LiveMerge live;
        private volatile boolean stopped;

        Job(ReportQuery q, QueryPlan plan, Map<String, long[]> writers) {
            this.q = q;
            this.plan = plan;
            this.decoder = new RowDecoder(codec, q, plan);
            this.live = new LiveMerge(decoder, plan, CounterReader.this.live, writers.values().stream().flatMapToLong(java.util.Arrays::stream).toArray(),
                    this::groupOf);
        }

        KeyRange range(int salt) {
            return codec.counterTimeRange(salt, plan.stored(), plan.fromMinute(), plan.toMinute());
        }

        void stop() {
            stopped = true;
        }

        /**
         * The rows of {@code keys} (one series: one salt bucket, so one region), each chunk of
         * {@value #GET_CHUNK} by one skip-scan: a scan from the chunk's first key to its last whose
         * {@link MultiRowRangeFilter} seeks from each wanted row straight to the next. A multi-Get
         * of the same rows opens a region scanner per row on the region server; the skip-scan
         * opens one and seeks, which measured about half the time for a 48-hour series
         * (docs/BENCHMARKS.md). The chunks go out at once through the asynchronous client
         * ({@link AsyncReads}: no pool between the request thread and the RPC) and are summed
         * here, on the request thread, as they arrive, under the report's one deadline:
         * {@link #start} sends them (a read under way: its chunks and the deadline), {@link #collect}
         * sums them, so the caller can do other work (ask the aggregators) in between.
         */
        record Reads(List<CompletableFuture<List<Result>>> chunks, long startNanos, long deadlineNanos) {
        }

        /** Sends the read of {@code keys}; {@link #collect} sums it. */
        Reads start(List<byte[]> keys) {
            long t0 = System.nanoTime();
            List<CompletableFuture<List<Result>>> reads = new ArrayList<>();
            for (int i = 0; i < keys.size(); i += GET_CHUNK) {
                List<byte[]> chunk = keys.subList(i, Math.min(keys.size(), i + GET_CHUNK));
                reads.add(async.scanAll(layout.counterTable(q.rollup()), skipScan(chunk)));
            }
            return new Reads(reads, t0, t0 + timeout.toNanos());
        }

        /** Sums the rows of {@code reads} as they arrive, keeping them in {@code kept} when not null. */
        Map<GroupKey, long[]> collect(Reads reads, List<Result> kept) {
            try {
                Map<GroupKey, long[]> out = new HashMap<>();
                for (CompletableFuture<List<Result>> read : reads.chunks()) {
                    for (Result r : ReadFailure.await(read, reads.deadlineNanos() - System.nanoTime(), timeout)) {
                        count();
                        add(out, r);
                        if (kept != null) {
                            kept.add(r);
                        }
                    }
                }
                getLatency.observeNanos(System.nanoTime() - reads.startNanos());
                return out;
            } finally {
                reads.chunks().forEach(f -> f.cancel(true));
            }
        }

        private Scan skipScan(List<byte[]> keys) {
            List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>(keys.size());
            for (byte[] k : keys) {
                ranges.add(new MultiRowRangeFilter.RowRange(k, true, k, true));
            }
            MultiRowRangeFilter filter = new MultiRowRangeFilter(ranges); // sorts and merges the ranges
            byte[] first = keys.stream().min(Bytes.BYTES_COMPARATOR).orElseThrow();
            byte[] last = keys.stream().max(Bytes.BYTES_COMPARATOR).orElseThrow();
            Scan scan = new Scan().withStartRow(first).withStopRow(last, true).setFilter(filter)
                    .setCaching(keys.size()).setLimit(keys.size());
            return scan.addFamily(TableLayout.COUNTER_FAMILY); // base and writer cells (CounterValues)
        }

        Map<GroupKey, long[]> scan(int salt) throws IOException {
            KeyRange range = range(salt);
            Scan scan = decoder.confine(new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(SCAN_CACHING));
            Map<GroupKey, long[]> out = new HashMap<>();
            long t0 = System.nanoTime();
            try (Table table = connection.getTable(layout.counterTable(q.rollup()));
                 ResultScanner rs = table.getScanner(scan)) {
                for (Result r : rs) {
                    if (stopped || Thread.currentThread().isInterrupted()) {
                        break;
                    }
                    count();
                    add(out, r);
                }
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            scanLatency.observeNanos(System.nanoTime() - t0);
            return out;
        }

        private void count() {
            rowsRead.inc();
            if (rows.incrementAndGet() > maxRowsScanned) {
                stopped = true;
                throw new QueryException("from", "the report would read more than " + maxRowsScanned
                        + " counter rows; shorten from..to, filter more dimensions or group by fewer");
            }
        }

        private void add(Map<GroupKey, long[]> out, Result r) {
            GroupKey group = groupOf(r.getRow());
            if (group == null) {
                return;
            }
            long[] sum = out.computeIfAbsent(group, k -> new long[decoder.width()]);
            decoder.addTo(sum, r);
            live.stash(r);
        }

        /** The output cell a counter row sums into; null when the report does not want the row. */
        private GroupKey groupOf(byte[] row) {
            CounterKey key;
            try {
                key = decoder.parse(row);
            } catch (RuntimeException e) {
                return null; // not a key of this rollup (only a live answer could hold one)
            }
            List<String> values = key.values();
            if (!decoder.matches(values)) {
                return null;
            }
            int bucket = plan.buckets().indexOf(key.bucketMinute());
            return bucket < 0 ? null : new GroupKey(bucket, List.of(decoder.group(values)));
        }
    }
}
