package io.adreport.report.query;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import io.adreport.http.ReadFailure;
import io.adreport.http.QueryException;
import io.adreport.report.query.ExportWindows.Range;
import io.adreport.report.query.ExportWindows.Window;

/**
 * Streams every row of a breakdown (the {@code format=csv} and {@code format=ndjson} export),
 * each row written only once its sums are complete.
 *
 * <p><b>Order.</b> Rows come in time order, then in row-key order of their dimension values:
 * the groupBy values taken in the rollup's dimension order, compared by UTF-8 bytes (Unicode code
 * point order). That is the order the counter table already keeps inside one salt bucket, which
 * is what makes the merge below possible.
 *
 * <p><b>Merge</b> (the usual case). Keys are salt first, so no single scan is in output order;
 * but inside one salt bucket and one stored time bucket, rows are sorted by dimension values. A
 * window of output buckets is read as one scan per salt bucket and stored bucket, and the scans
 * are k-way merged by (output bucket, dimension values). When every dimension before the last
 * groupBy dimension is grouped by or fixed by a filter, the rows of one group are adjacent in
 * that order, so a group is complete — summed over every salt bucket and stored bucket — the
 * moment the merge moves past it, and is written then. When each output bucket is one stored
 * bucket (UTC {@code day} over DAY rows, {@code hour} over HOUR rows, {@code all} over one stored
 * bucket), the whole export is one window of one scan per salt bucket; otherwise each output
 * bucket is a window of (salt buckets × its stored buckets) scans, up to {@value #MAX_STREAMS}.
 * Memory: the scanners' buffers ({@value #BUFFERED_ROWS} rows across a window) and one group,
 * whatever the number of rows. Nothing is summed in a map.
 *
 * <p><b>Sum</b> (the fallback, e.g. {@code campaign} rollup grouped by campaign alone, whose rows
 * for one campaign lie under every advertiser). Each output bucket is summed from its parallel
 * salt-bucket scans into a map, sorted and written before the next is read. Memory: the distinct
 * groups of one output bucket — for {@code granularity=all} that is the whole answer. Such a
 * window may read at most {@code maxRowsScanned} rows (400, or a cut-off stream past the first).
 *
 * <p><b>First byte.</b> {@link #open} starts the first window (merge) or sums it (sum) before
 * the caller commits a status, so a bad query or an unreachable HBase is still a clean 400 / 503.
 * For a merge that is one short read per scan, in parallel: at most {@value #FIRST_ROWS} rows,
 * which proves the table and its regions answer and gives the merge its first rows. The rest of
 * each scan is then opened on the executor, in full batches, while the caller sends the status and
 * the merge writes from the first rows; a scan whose first rows run out waits for its rest. A
 * failure of such a later read comes after the status, and cuts the stream like any failure
 * after the first byte. The first byte waits for the slowest short read, not for 16,000 rows.
 * For a sum it is the first output bucket's whole read.
 *
 * <p><b>Concurrency.</b> One {@link Export} belongs to the request thread that opened it; only
 * the first reads, the opening of the rest of each scan and sum scans run on the shared
 * executor. A rest opened after its export was closed is closed by the task that opened it.
 */
public final class ExportReader {
    /** Most scanners merged at once; beyond, a window is summed instead. */
    static final int MAX_STREAMS = 1024;
    /** Rows buffered across all scanners of one window (the scanner caching is split between them). */
    static final int BUFFERED_ROWS = 16_000;
    /**
     * Rows of each scan's first read, made before the status is sent. Small, because the status
     * waits for the slowest of the parallel first reads (a full 1,000-row batch each took seconds
     * under load); not one, so the merge can write a few rows before the full batches arrive.
     */
    static final int FIRST_ROWS = 16;

    /** Where rows go; an {@link IOException} is the client going away. */
    public interface RowSink {
        void accept(ReportRow row) throws IOException;
    }

    private final Cube cube;
    private final Connection connection;
    private final TableLayout layout;
    private final RowKeyCodec codec;
    private final ExecutorService executor;
    private final long maxRowsScanned;
    private final Duration timeout;
    private final Metrics.Counter rowsRead;

    public ExportReader(Cube cube, Connection connection, TableLayout layout, ExecutorService executor, long maxRowsScanned,
                        Duration timeout, Metrics metrics) {
        this.cube = cube;
        this.connection = connection;
        this.layout = layout;
        this.codec = new RowKeyCodec(cube);
        this.executor = executor;
        this.maxRowsScanned = maxRowsScanned;
        this.timeout = timeout;
        this.rowsRead = metrics.counter("adreport_report_rows_read_total", "Counter rows read by reports");
    }

    /** Plans the export and starts its first window; the caller must {@link Export#close} it. */
    public Export open(ReportQuery q, QueryPlan plan) {
        Export e = new Export(q, plan);
        try {
            e.start();
            return e;
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
    }

    /** One running export. */
    public final class Export implements AutoCloseable {
        private final ReportQuery q;
        private final QueryPlan plan;
        private final RowDecoder decoder;
        private final boolean merge;
        private final List<Window> windows;
        private final int[] rollupOrder;
        private final List<ExportScanner> open = new ArrayList<>();
        private List<ReportRow> firstSum;
        private long written;

        Export(ReportQuery q, QueryPlan plan) {
            this.q = q;
            this.plan = plan;
            this.decoder = new RowDecoder(codec, q, plan);
            this.rollupOrder = decoder.groupIndexesInRollupOrder();
            ExportWindows w = ExportWindows.of(plan, decoder.groupsAreContiguous(q.rollup()), codec.saltBuckets(), MAX_STREAMS);
            this.merge = w.merge();
            this.windows = w.windows();
        }

        /** "merge" or "sum": how the rows are made complete (see the class comment). */
        public String strategy() {
            return merge ? "merge" : "sum";
        }

        void start() {
            if (merge) {
                openScanners(windows.get(0));
            } else {
                firstSum = sum(windows.get(0));
            }
        }

        /** Writes every row; returns how many. HBase failures are {@link ReadFailure}s, the sink's are IOExceptions. */
        public long writeTo(RowSink sink) throws IOException {
            for (int w = 0; w < windows.size(); w++) {
                Window window = windows.get(w);
                if (merge) {
                    if (w > 0) {
                        openScanners(window);
                    }
                    mergeWindow(window, sink);
                    closeScanners();
                } else {
                    List<ReportRow> rows = w == 0 ? firstSum : sum(window);
                    firstSum = null;
                    for (ReportRow r : rows) {
                        emit(sink, r);
                    }
                }
            }
            return written;
        }

        private void emit(RowSink sink, ReportRow row) throws IOException {
            sink.accept(row);
            written++;
        }

        private void emit(RowSink sink, int bucket, String[] group, long[] sums) throws IOException {
            emit(sink, ReportEngine.row(cube, q, plan, new GroupKey(bucket, List.of(group)), sums));
        }

        // --- merge -----------------------------------------------------------------------

        private void openScanners(Window window) {
            int caching = Math.max(32, Math.min(1000, BUFFERED_ROWS / window.ranges().size()));
            boolean prefetch = window.ranges().size() <= 64;
            List<Future<ExportScanner>> opening = new ArrayList<>();
            for (Range r : window.ranges()) {
                // every scan's first few rows, in parallel: the merge needs each scan's first row
                opening.add(executor.submit(() -> scanner(r).readFirst()));
            }
            RuntimeException failed = null;
            for (Future<ExportScanner> f : opening) {
                try {
                    open.add(await(f)); // every opened scanner is tracked, so close() releases it
                } catch (RuntimeException e) {
                    failed = failed == null ? e : failed;
                }
            }
            if (failed != null) {
                throw failed;
            }
            for (ExportScanner s : open) {
                s.readRest(caching, prefetch);
            }
            for (ExportScanner s : open) {
                s.advance();
            }
        }

        private ExportScanner scanner(Range r) throws IOException {
            KeyRange range = codec.counterTimeRange(r.salt(), plan.stored(), r.fromMinute(), r.toMinute());
            return new ExportScanner(connection.getTable(layout.counterTable(q.rollup())), range, decoder, plan.buckets(), executor,
                    rowsRead, timeout);
        }

        private void closeScanners() {
            open.forEach(ExportScanner::close);
            open.clear();
        }

        private void mergeWindow(Window window, RowSink sink) throws IOException {
            PriorityQueue<ExportScanner> heap = new PriorityQueue<>(Math.max(1, open.size()), ExportScanner.ORDER);
            for (ExportScanner s : open) {
                if (s.row != null) {
                    heap.add(s);
                }
            }
            boolean zeroFill = q.groupBy().isEmpty();
            int nextZero = window.first();
            int bucket = -1;
            String[] group = null;
            long[] sums = null;
            while (!heap.isEmpty()) {
                ExportScanner s = heap.poll();
                if (group == null || s.bucket != bucket || !Arrays.equals(s.group, group)) {
                    if (group != null) {
                        emit(sink, bucket, group, sums);
                        nextZero = bucket + 1;
                    }
                    for (; zeroFill && nextZero < s.bucket; nextZero++) {
                        emit(sink, nextZero, new String[0], new long[decoder.width()]);
                    }
                    bucket = s.bucket;
                    group = s.group;
                    sums = new long[decoder.width()];
                }
                decoder.addTo(sums, s.row);
                if (s.advance()) {
                    heap.add(s);
                }
            }
            if (group != null) {
                emit(sink, bucket, group, sums);
                nextZero = bucket + 1;
            }
            for (; zeroFill && nextZero < window.end(); nextZero++) {
                emit(sink, nextZero, new String[0], new long[decoder.width()]);
            }
        }

        // --- sum -------------------------------------------------------------------------

        private List<ReportRow> sum(Window window) {
            int bucket = window.first();
            AtomicLong rows = new AtomicLong();
            List<Future<Map<List<String>, long[]>>> parts = new ArrayList<>();
            for (Range r : window.ranges()) {
                Callable<Map<List<String>, long[]>> task = () -> sumScan(r, bucket, rows);
                parts.add(executor.submit(task));
            }
            Map<List<String>, long[]> merged = new HashMap<>();
            try {
                for (Future<Map<List<String>, long[]>> f : parts) {
                    await(f).forEach((g, add) -> {
                        long[] sum = merged.computeIfAbsent(g, k -> new long[add.length]);
                        for (int i = 0; i < add.length; i++) {
                            sum[i] += add[i];
                        }
                    });
                }
            } finally {
                parts.forEach(f -> f.cancel(true));
            }
            if (q.groupBy().isEmpty()) {
                merged.computeIfAbsent(List.of(), k -> new long[decoder.width()]);
            }
            List<Map.Entry<List<String>, long[]>> cells = new ArrayList<>(merged.entrySet());
            merged.clear();
            cells.sort((a, b) -> compareGroups(a.getKey(), b.getKey()));
            List<ReportRow> out = new ArrayList<>(cells.size());
            for (Map.Entry<List<String>, long[]> c : cells) {
                out.add(ReportEngine.row(cube, q, plan, new GroupKey(bucket, c.getKey()), c.getValue()));
            }
            return out;
        }

        private Map<List<String>, long[]> sumScan(Range r, int bucket, AtomicLong rows) throws IOException {
            KeyRange range = codec.counterTimeRange(r.salt(), plan.stored(), r.fromMinute(), r.toMinute());
            Scan scan = decoder.confine(new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(CounterReader.SCAN_CACHING));
            Map<List<String>, long[]> out = new HashMap<>();
            try (Table table = connection.getTable(layout.counterTable(q.rollup()));
                 ResultScanner rs = table.getScanner(scan)) {
                for (Result res : rs) {
                    if (Thread.currentThread().isInterrupted()) {
                        break;
                    }
                    rowsRead.inc();
                    if (rows.incrementAndGet() > maxRowsScanned) {
                        throw new QueryException("from", "one " + q.granularity().label() + " bucket of this export would read more than "
                                + maxRowsScanned + " counter rows; use a finer granularity, group by leading dimensions or filter more");
                    }
                    CounterKey key = decoder.parse(res.getRow());
                    if (!decoder.matches(key.values()) || plan.buckets().indexOf(key.bucketMinute()) != bucket) {
                        continue;
                    }
                    decoder.addTo(out.computeIfAbsent(List.of(decoder.group(key.values())), k -> new long[decoder.width()]), res);
                }
            }
            return out;
        }

        private int compareGroups(List<String> a, List<String> b) {
            for (int i : rollupOrder) {
                int c = compareCodePoints(a.get(i), b.get(i));
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        }

        private <T> T await(Future<T> f) {
            return ReadFailure.await(f, timeout.toNanos(), timeout);
        }

        @Override
        public void close() {
            closeScanners();
        }
    }

    /** Unicode code point order, which is the UTF-8 byte order the row keys sort in. */
    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
