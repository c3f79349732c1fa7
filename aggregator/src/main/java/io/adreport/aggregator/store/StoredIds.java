package io.adreport.aggregator.store;

import io.adreport.aggregator.TableSource;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import io.adreport.schema.threads.DaemonThreads;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which raw rows of the recent UTC days are certainly absent, so that a group commit can skip
 * the existence read of a new event (and the lookup of a join target that does not exist).
 *
 * <h2>Why</h2>
 * An existence read costs the region server a scanner over the memstore and every store file of
 * the region, about as much as the put itself; for live traffic almost every answer is "absent".
 * A Bloom filter of the stored keys answers "certainly absent" from memory for all but ~1-2%.
 *
 * <h2>Exactness</h2>
 * A day's filter is trusted only once it is <b>complete</b>: it holds every raw key of that day
 * written by this process since it started (added before each put is sent) and every key that
 * was in the table when it started (a key-only scan of the day, run in the background on the
 * day's first event). A row the scan passes before this process writes it is seen by the scan; a
 * row written after the scan passed its place was written by this process and added by it. Until
 * the scan ends, and for days outside the window, every event is checked with a read as before.
 * A false positive only costs the read. If the filter reaches its memory bound it stops taking
 * keys and the day falls back to reads for good.
 *
 * <p>What it cannot see: rows written by another aggregator process after this one loaded the
 * day. With several aggregators that may receive the same event id, {@code aggregator.instances}
 * above 1 turns this filter off and makes raw writes put-if-absent instead ({@link GroupCommit}).
 */
public final class StoredIds implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoredIds.class);
    private static final long FIRST_CAPACITY = 1L << 20;
    private static final double FPP = 0.01;

    private final TableLayout layout;
    private final RowKeyCodec keys;
    private final TableSource tables;
    private final Clock clock;
    private final int days;
    private final long maxBytesPerDay;
    private final ConcurrentHashMap<Long, DayFilter> filters = new ConcurrentHashMap<>();
    private final ScheduledExecutorService loader;

    /** One day's filter; {@code complete} once its table scan finished. */
    private static final class DayFilter {
        final ScalableBloom bloom;
        volatile boolean complete;

        DayFilter(long maxBytes) {
            bloom = new ScalableBloom(FIRST_CAPACITY, FPP, maxBytes);
        }

        boolean trusted() {
            return complete && !bloom.saturated();
        }
    }

    /**
     * @param days     recent UTC days kept (today and {@code days - 1} before, plus tomorrow for
     *                 clock skew); 0 disables the filter (every event is read)
     * @param maxBytes memory bound for all days together
     */
    public StoredIds(TableLayout layout, TableSource tables, Clock clock, int days, long maxBytes) {
        this.layout = layout;
        this.keys = new RowKeyCodec(layout.cube());
        this.tables = tables;
        this.clock = clock;
        this.days = days;
        this.maxBytesPerDay = days == 0 ? 0 : maxBytes / (days + 1);
        this.loader = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("adreport-stored-ids-loader"));
    }

    /** {@code false} only when the raw row {@code rawKey} of UTC day {@code epochDay} is certainly not stored. */
    public boolean mightBeStored(byte[] rawKey, long epochDay) {
        DayFilter f = filter(epochDay);
        return f == null || !f.trusted() || f.bloom.mightContain(rawKey);
    }

    /** Records that {@code rawKey} is (about to be) stored or was found stored. */
    public void stored(byte[] rawKey, long epochDay) {
        DayFilter f = filter(epochDay);
        if (f != null) {
            f.bloom.add(rawKey);
        }
    }

    /** Whether the filter of {@code epochDay} is loaded and trusted (for tests and metrics). */
    public boolean trusted(long epochDay) {
        DayFilter f = filters.get(epochDay);
        return f != null && f.trusted();
    }

    public long bytes() {
        return filters.values().stream().mapToLong(f -> f.bloom.bytes()).sum();
    }

    private DayFilter filter(long epochDay) {
        if (days == 0) {
            return null;
        }
        long today = UtcDay.epochDayOfMillis(clock.millis()); // per event: no allocation
        if (epochDay < today - days + 1 || epochDay > today + 1) {
            return null;
        }
        DayFilter f = filters.get(epochDay);
        if (f != null) {
            return f;
        }
        DayFilter created = new DayFilter(maxBytesPerDay);
        f = filters.putIfAbsent(epochDay, created);
        if (f != null) {
            return f;
        }
        filters.keySet().removeIf(d -> d < today - days + 1);
        loader.execute(() -> load(epochDay, created));
        return created;
    }

    /** Adds every raw key of {@code epochDay} already in the table, then marks the filter complete. */
    private void load(long epochDay, DayFilter f) {
        long start = System.nanoTime();
        long n = 0;
        UtcDay day = UtcDay.ofEpochDay(epochDay);
        try (Table raw = tables.open(layout.rawTable())) {
            for (int salt = 0; salt < keys.rawSaltBuckets(); salt++) {
                KeyRange range = keys.rawDayRange(salt, day);
                Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop())
                        .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
                        .setCaching(10_000).setCacheBlocks(false);
                try (ResultScanner scanner = raw.getScanner(scan)) {
                    for (Result r : scanner) {
                        f.bloom.add(r.getRow());
                        n++;
                    }
                }
            }
            f.complete = true;
            LOG.info("dedup filter for {}: {} stored events loaded in {} ms ({} KiB){}", day, n,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), f.bloom.bytes() / 1024,
                    f.bloom.saturated() ? "; memory bound reached, the day is checked with reads" : "");
        } catch (IOException | RuntimeException e) {
            // Retried on the same filter: it holds every key written since it was created, and a re-scan only re-adds.
            LOG.warn("dedup filter for {} not loaded ({}); its events are checked with reads; retrying in 10 s", day, e.toString());
            try {
                loader.schedule(() -> load(epochDay, f), 10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                LOG.debug("not retried: closing");
            }
        }
    }

    @Override
    public void close() {
        loader.shutdownNow();
    }
}
