package io.adreport.aggregator.store;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.TableSource;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest ceiling, for benchmarks only ({@code aggregator.mode=put-only}): a group commit that
 * stores every valid event's raw row with one plain batched Put and does nothing else.
 *
 * <p>It keeps everything a request costs up to the raw write (HTTP, JSON parsing, validation,
 * device hashing, the raw-store queue and writers, {@link RawEventCodec#toPut} with its
 * {@code SYNC_WAL}), and drops what the product adds on top: no in-flight claims, no existence
 * or join reads, no counters. So it is not exact: a replayed event is written again over the
 * same row and acknowledged as accepted, and no report ever shows it. What it measures is how
 * close {@link GroupCommit} comes to one plain Put per event, in the same run.
 *
 * <p>Failure: as in {@link GroupCommit}, a request whose rows did not all land is answered 503
 * (its events are counted as store failures); a retry overwrites the same rows.
 */
public final class PutOnlyCommit {
    private static final Logger LOG = LoggerFactory.getLogger(PutOnlyCommit.class);

    private final TableLayout layout;
    private final TableSource tables;
    private final RawEventCodec codec;
    private final Clock clock;
    private final AggregatorMetrics metrics;

    public PutOnlyCommit(TableLayout layout, TableSource tables, Clock clock, AggregatorMetrics metrics) {
        this.layout = layout;
        this.tables = tables;
        this.codec = new RawEventCodec(new RowKeyCodec(layout.cube()));
        this.clock = clock;
        this.metrics = metrics;
    }

    void commit(List<RawStore.Submission> batch) {
        long start = System.nanoTime();
        Instant arrival = clock.instant();
        List<Put> puts = new ArrayList<>();
        for (RawStore.Submission s : batch) {
            for (Event e : s.events()) {
                puts.add(codec.toPut(e, arrival));
            }
        }
        Set<RowId> failed;
        try (Table raw = tables.open(layout.rawTable())) {
            failed = RawPuts.put(raw, puts, metrics.rawWrites);
        } catch (IOException | RuntimeException ex) {
            LOG.warn("put-only commit of {} events failed: {}", puts.size(), ex.toString());
            metrics.storeFailures.add(puts.size());
            StoreUnavailable failure = new StoreUnavailable("raw table unavailable: " + ex.getMessage(), ex);
            batch.forEach(s -> s.done().completeExceptionally(failure));
            return;
        } finally {
            metrics.rawWriteSeconds.observeNanos(System.nanoTime() - start);
        }
        int next = 0;
        for (RawStore.Submission s : batch) {
            int n = s.events().size();
            int lost = 0;
            for (Put p : puts.subList(next, next + n)) {
                if (failed.contains(new RowId(p.getRow()))) {
                    lost++;
                }
            }
            next += n;
            if (lost > 0) {
                metrics.storeFailures.add(lost);
                s.done().completeExceptionally(new StoreUnavailable(lost + " raw writes failed", null));
            } else {
                s.done().complete(Collections.nCopies(n, Outcome.STORED));
            }
        }
    }
}
