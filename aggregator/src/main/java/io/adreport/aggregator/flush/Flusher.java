package io.adreport.aggregator.flush;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.TableSource;
import io.adreport.aggregator.coalesce.CoalescingBuffer.RowCells;
import io.adreport.aggregator.coalesce.CounterCells;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one drained buffer generation to HBase as multi-column Increments.
 *
 * <p>Batching: one Increment per counter row (the buffer holds one entry per row), grouped by
 * table into {@code Table.batch} calls of at most {@code batchRows}, run as many at a time as
 * the pool has threads: the region server applies the increments of one call one after another, so parallel
 * calls are what uses more of its handlers.
 *
 * <p>Failure: an Increment whose result slot holds a {@code Result} was applied. Any other
 * outcome (an exception in its slot, or no slot filled because the call failed as a whole) is
 * <b>uncertain</b>: the server may have applied it and lost the answer. Resending it would draw a
 * new nonce (HBase nonces only cover the client's own retries inside one call), so it could apply
 * twice. Uncertain cells are therefore never resent: they are counted in
 * {@code adreport_increment_cells_unapplied_total}, logged, and left to the nightly job, which
 * recomputes the day from raw events. Live counters can thus lag but never double-count.
 */
public final class Flusher {
    private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

    private final TableLayout layout;
    private final CounterCells cells;
    private final TableSource tables;
    private final ExecutorService pool;
    private final int batchRows;
    private final AggregatorMetrics metrics;
    private final Durability durability;

    /** {@code pool}'s thread count is the number of {@code Table.batch} calls in flight. */
    public Flusher(TableLayout layout, CounterCells cells, TableSource tables, ExecutorService pool, int batchRows,
                   Durability durability, AggregatorMetrics metrics) {
        this.durability = durability;
        this.layout = layout;
        this.cells = cells;
        this.tables = tables;
        this.pool = pool;
        this.batchRows = batchRows;
        this.metrics = metrics;
    }

    /** Sends {@code rows} except those of {@code closedDays}; never throws for HBase failures. */
    public FlushReport send(List<RowCells> rows, Set<Long> closedDays) {
        long start = System.nanoTime();
        long dropped = 0;
        List<List<RowCells>> chunks = new ArrayList<>();
        List<List<RowCells>> open = new ArrayList<>();
        for (RowCells rc : rows) {
            if (closedDays.contains((long) rc.epochDay())) {
                dropped += rc.cellCount();
                continue;
            }
            while (open.size() <= rc.table()) {
                open.add(null);
            }
            List<RowCells> chunk = open.get(rc.table());
            if (chunk == null) {
                chunk = new ArrayList<>(Math.min(batchRows, 1024));
                open.set(rc.table(), chunk);
            }
            chunk.add(rc);
            if (chunk.size() == batchRows) {
                chunks.add(chunk);
                open.set(rc.table(), null);
            }
        }
        open.stream().filter(c -> c != null && !c.isEmpty()).forEach(chunks::add);

        AtomicLong sentRows = new AtomicLong();
        AtomicLong sentCells = new AtomicLong();
        AtomicLong unapplied = new AtomicLong();
        // The pool has `concurrency` threads: that many calls in flight, the next chunk starts as soon as one ends.
        List<Future<?>> pending = new ArrayList<>(chunks.size());
        for (List<RowCells> chunk : chunks) {
            pending.add(pool.submit(() -> sendChunk(chunk, sentRows, sentCells, unapplied)));
        }
        for (Future<?> f : pending) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException e) {
                LOG.error("flush task failed unexpectedly", e.getCause());
            }
        }
        if (dropped > 0) {
            metrics.cellsDroppedClosedDay.add(dropped);
        }
        long nanos = System.nanoTime() - start;
        metrics.flushSeconds.observeNanos(nanos);
        return new FlushReport(sentRows.get(), sentCells.get(), unapplied.get(), dropped, nanos);
    }

    private void sendChunk(List<RowCells> chunk, AtomicLong sentRows, AtomicLong sentCells, AtomicLong unapplied) {
        TableName name = layout.counterTable(cells.rollup(chunk.get(0).table()));
        List<Row> actions = new ArrayList<>(chunk.size());
        long chunkCells = 0;
        for (RowCells rc : chunk) {
            Increment inc = new Increment(rc.row());
            int touched = rc.touchedColumns();
            for (int c = 0; c < cells.columns(); c++) {
                if ((touched & (1 << c)) != 0) {
                    inc.addColumn(TableLayout.COUNTER_FAMILY, cells.qualifier(c), rc.delta(c));
                }
            }
            inc.setReturnResults(false);
            inc.setDurability(durability);
            actions.add(inc);
            chunkCells += rc.cellCount();
        }
        Object[] results = new Object[actions.size()];
        Throwable failure = null;
        try (Table t = tables.open(name)) {
            t.batch(actions, results);
        } catch (IOException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = e;
        } catch (RuntimeException e) {
            failure = e;
        }
        sentRows.addAndGet(actions.size());
        sentCells.addAndGet(chunkCells);
        metrics.incrementsSent.add(actions.size());
        metrics.cellsSent.add(chunkCells);
        if (failure == null) {
            return;
        }
        long lost = 0;
        int lostRows = 0;
        for (int i = 0; i < results.length; i++) {
            if (!(results[i] instanceof org.apache.hadoop.hbase.client.Result)) {
                lost += chunk.get(i).cellCount();
                lostRows++;
                if (lostRows <= 3) {
                    LOG.warn("increment of {} row {} not confirmed ({}): left to the nightly job", name,
                            Bytes.toStringBinary(chunk.get(i).row()), String.valueOf(results[i] == null ? failure : results[i]));
                }
            }
        }
        unapplied.addAndGet(lost);
        metrics.flushFailures.inc();
        metrics.cellsUnapplied.add(lost);
        LOG.error("flush batch to {}: {} of {} increments ({} cells) failed or uncertain, not resent (nightly job restores them): {}",
                name, lostRows, actions.size(), lost, failure.toString());
    }
}
