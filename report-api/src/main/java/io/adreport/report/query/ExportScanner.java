package io.adreport.report.query;

import io.adreport.http.ReadFailure;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One scan of an export's merge ({@link ExportReader}, "Merge" and "First byte") and its current
 * row, the row that passed the report's filters, with its output bucket and group: first a short
 * read of {@value ExportReader#FIRST_ROWS} rows made before the status is sent, then the rest of the
 * scan opened on the executor in full batches and awaited when the first rows run out.
 *
 * <p>Owned by the request thread of its export; only the opening of the rest runs on the
 * executor. A rest opened after {@link #close} is closed by the task that opened it (guarded by
 * this object's lock).
 */
final class ExportScanner implements AutoCloseable {
    static final Comparator<ExportScanner> ORDER = (a, b) -> {
        int c = Integer.compare(a.bucket, b.bucket);
        if (c != 0) {
            return c;
        }
        byte[] x = a.row.getRow();
        byte[] y = b.row.getRow();
        int off = RowKeyCodec.COUNTER_VALUES_OFFSET;
        return Bytes.compareTo(x, off, x.length - off, y, off, y.length - off);
    };

    private final Table table;
    private final RowDecoder decoder;
    private final TimeBuckets buckets;
    private final ExecutorService executor;
    private final Metrics.Counter rowsRead;
    private final Duration timeout;
    private final byte[] stop;
    private final byte[] start;
    /** The first read's rows not yet merged; only the request thread touches them after {@link #readFirst}. */
    private final ArrayDeque<Result> first = new ArrayDeque<>(ExportReader.FIRST_ROWS);
    /** Where the rest starts (exclusive): the first read's last row, or null when that read was all. */
    private byte[] after;
    private Future<ResultScanner> opening;
    private ResultScanner rest;
    // guarded by this: the rest is opened on the executor, and the request thread may close first
    private ResultScanner opened;
    private boolean closed;
    Result row;
    int bucket;
    String[] group;

    /** {@code table}: the rollup's counter table, closed with this; {@code range}: the scan's rows. */
    ExportScanner(Table table, KeyRange range, RowDecoder decoder, TimeBuckets buckets, ExecutorService executor,
                  Metrics.Counter rowsRead, Duration timeout) {
        this.table = table;
        this.decoder = decoder;
        this.buckets = buckets;
        this.executor = executor;
        this.rowsRead = rowsRead;
        this.timeout = timeout;
        this.start = range.start();
        this.stop = range.stop();
    }

    /**
     * One short read of at most {@value ExportReader#FIRST_ROWS} rows: it proves the table and its
     * regions answer, and gives the merge its first rows, in a fraction of a full batch's time.
     */
    ExportScanner readFirst() throws IOException {
        Scan scan = decoder.confine(new Scan().withStartRow(start).withStopRow(stop).setCaching(ExportReader.FIRST_ROWS).setLimit(ExportReader.FIRST_ROWS));
        try (ResultScanner rs = table.getScanner(scan)) {
            for (Result r = rs.next(); r != null; r = rs.next()) {
                first.add(r);
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        after = first.size() == ExportReader.FIRST_ROWS ? first.getLast().getRow() : null;
        return this;
    }

    /** Starts opening the rest of the scan, in full batches, on the executor; awaited when the first rows run out. */
    void readRest(int caching, boolean prefetch) {
        if (after == null) {
            return;
        }
        Scan scan = decoder.confine(new Scan().withStartRow(after, false).withStopRow(stop)
                .setCaching(caching).setAsyncPrefetch(prefetch));
        opening = executor.submit(() -> {
            ResultScanner rs = table.getScanner(scan);
            synchronized (this) {
                if (!closed) {
                    opened = rs;
                    return rs;
                }
            }
            rs.close();
            return null;
        });
    }

    private Result next() throws IOException {
        if (!first.isEmpty()) {
            return first.poll();
        }
        if (rest == null) {
            if (opening == null) {
                return null;
            }
            rest = ReadFailure.await(opening, timeout.toNanos(), timeout);
            opening = null;
            if (rest == null) {
                return null; // closed meanwhile
            }
        }
        return rest.next();
    }

    /** Moves to the next row that passes the filters; false (and no row) at the end. */
    boolean advance() {
        try {
            for (Result r = next(); r != null; r = next()) {
                rowsRead.inc();
                CounterKey key = decoder.parse(r.getRow());
                if (!decoder.matches(key.values())) {
                    continue;
                }
                int b = buckets.indexOf(key.bucketMinute());
                if (b < 0) {
                    continue;
                }
                row = r;
                bucket = b;
                group = decoder.group(key.values());
                return true;
            }
            row = null;
            return false;
        } catch (IOException e) {
            throw new ReadFailure("reading counters failed: " + e, e);
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (opened != null) {
                opened.close();
            }
        }
        if (opening != null) {
            opening.cancel(false); // a rest opened after this closes itself
        }
        first.clear();
        try {
            table.close();
        } catch (IOException ignored) {
            // a Table from a shared Connection holds nothing to release
        }
    }
}
