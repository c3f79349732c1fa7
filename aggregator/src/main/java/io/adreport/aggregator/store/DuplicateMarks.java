package io.adreport.aggregator.store;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.TableSource;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The duplicate marks of acknowledged duplicates: {@code e:dup += 1} on their raw rows, best
 * effort and off the answer path. Group commits {@link #queue} rows; {@link #write} sends up to
 * 10,000 of them in one batch (after each group commit, and when the raw store's writers stop). Bounded: beyond {@value #MAX_PENDING} marks
 * waiting, a mark is dropped and counted ({@code duplicateMarkFailures}), as is every mark of a
 * batch that fails. The marks only inform (how often a beacon was retried); nothing is counted
 * from them. Thread-safe.
 */
final class DuplicateMarks {
    private static final Logger LOG = LoggerFactory.getLogger(DuplicateMarks.class);
    private static final int MAX_PENDING = 100_000;

    private final TableLayout layout;
    private final TableSource tables;
    private final AggregatorMetrics metrics;
    private final ConcurrentLinkedQueue<byte[]> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();

    DuplicateMarks(TableLayout layout, TableSource tables, AggregatorMetrics metrics) {
        this.layout = layout;
        this.tables = tables;
        this.metrics = metrics;
    }

    void queue(byte[] row) {
        if (count.incrementAndGet() > MAX_PENDING) {
            count.decrementAndGet();
            metrics.duplicateMarkFailures.inc();
            return;
        }
        pending.add(row);
    }

    /** Writes up to 10,000 waiting marks in one batch. */
    void write() {
        List<Row> incs = new ArrayList<>();
        byte[] row;
        while (incs.size() < 10_000 && (row = pending.poll()) != null) {
            count.decrementAndGet();
            incs.add(new Increment(row).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.DUPLICATES, 1).setReturnResults(false));
        }
        if (incs.isEmpty()) {
            return;
        }
        metrics.rawWrites.sent(incs);
        try (Table raw = tables.open(layout.rawTable())) {
            raw.batch(incs, new Object[incs.size()]);
        } catch (IOException | RuntimeException ex) {
            metrics.duplicateMarkFailures.add(incs.size());
            LOG.debug("duplicate marks failed: {}", ex.toString());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            metrics.duplicateMarkFailures.add(incs.size());
        }
    }
}
