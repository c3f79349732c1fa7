package io.adreport.aggregator.flush;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.TableSource;
import io.adreport.aggregator.coalesce.CoalescingBuffer;
import io.adreport.aggregator.coalesce.RowCells;
import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.counting.WriterCells;
import io.adreport.aggregator.dayclose.SendGate;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one drained buffer generation to HBase as writer cells: for each counter row, one Put of
 * this aggregator's absolute running totals of the row's touched metrics ({@link WriterTotals},
 * {@code CounterValues}), all Puts of one flush under one timestamp. A Put costs the region server
 * no read-modify-write, and the Puts of one call go to each region as one mini-batch with one WAL
 * sync, where Increments were applied and synced one by one.
 *
 * <p>Batching: one Put per counter row (the buffer holds one entry per row), grouped by
 * table and UTC day into {@code Table.batch} calls of at most {@code batchRows}, run as many at a
 * time as the pool has threads: one call holds a region-server handler per region it touches, so
 * parallel calls are what uses more of its handlers.
 *
 * <p>Day close: each call carries one day. Just before it is sent it registers its day with the
 * {@link SendGate} and then reads the closed days; a call of a closed day is dropped (its cells
 * counted in {@code adreport_cells_dropped_closed_day_total}) instead of sent. A day that closes
 * while a long flush runs thus loses the rest of its cells in that flush, and the watcher waits
 * only for the calls of that day already on the wire (see {@code DayCloseWatcher}). The events
 * behind dropped cells are stored raw, so the nightly recount counts them.
 *
 * <p>Failure: a Put whose result slot holds a {@code Result} was applied. Any other outcome (an
 * exception in its slot, or no slot filled because the call failed as a whole) is
 * <b>uncertain</b>: the server may have applied it and lost the answer. Its cells are counted in
 * {@code adreport_increment_cells_unapplied_total} and logged, and the call is reported to the
 * gate, which holds its day's close acknowledgement until the request can no longer be applied.
 * An uncertain Put is not resent on its own; but as it carries absolute totals, the row's next
 * flush writes totals that include it, and a total applied twice is the same total: live
 * counters can lag (until that next write or the nightly job) but never double-count.
 *
 * <p><b>Live reads</b> ({@link #live}, {@code LiveCounts}): this writer's current total of a row
 * is its remembered total ({@link WriterTotals}) plus the deltas not yet added to it: those of the
 * generation taken for this flush until its Puts are built ({@link #take}), and those of the
 * buffer's filling generation. One lock ({@code live}) covers the take, each step of building a
 * flush's Puts (totals and writer id change only there; {@code inFlightFrom} marks how far the
 * generation is in the totals) and a live read, so a read sees every delta exactly once: in the
 * totals, in the rest of the generation in flight, or in the buffer. Ingest never takes it; a
 * flush holds it for {@value #LIVE_STEP} rows at a time, never while its Puts are sent, and the
 * lock is fair, so a waiting read goes before the flush's next step.
 *
 * <p>The metrics keep their names from the Increment days: {@code adreport_increments_sent_total}
 * counts the rows (Puts) sent, {@code adreport_increment_cells_sent_total} their cells.
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
    private final SendGate gate;
    private final LongPredicate closed;
    private final WriterTotals totals;
    /**
     * Fair: a live read that waits gets the lock at the flush's next step. Unfair, the flusher took
     * it back at once after each step (it never parks between them), so a read waited for the
     * whole generation: up to 736 ms under saturated replay (JFR, docs/BENCHMARKS.md).
     */
    private final java.util.concurrent.locks.ReentrantLock live = new java.util.concurrent.locks.ReentrantLock(true);
    /** Rows of a live lock's hold while a flush builds its Puts. */
    private static final int LIVE_STEP = 2_000;
    private List<RowCells> inFlight = List.of(); // the generation taken; guarded by live
    private int inFlightFrom; // rows of inFlight before it are in the totals; guarded by live
    /** The live reads' first step: the writer ids as of the last flush's start, one snapshot (never torn). */
    private volatile LiveCounts.Answer ids;
    private final List<String> metricNames; // the live answers' metric order: the column order
    /** Each live writer id's qualifier of each metric column (a row's Put takes its id's); flush thread only. */
    private final long[] qualifierIds = new long[WriterTotals.MAX_IDS + 1];
    private final byte[][][] qualifiersById = new byte[WriterTotals.MAX_IDS + 1][][];
    private int qualifierVictim;

    /** One row's Put, with the drained row it writes. */
    private record Write(RowCells cells, Put put) {
    }

    /**
     * {@code pool}'s thread count is the number of {@code Table.batch} calls in flight;
     * {@code closed} tells whether a UTC epoch day is closed for live counting (read after each
     * call registered with {@code gate}).
     */
    public Flusher(TableLayout layout, CounterCells cells, TableSource tables, ExecutorService pool, int batchRows,
                   Durability durability, AggregatorMetrics metrics, SendGate gate, LongPredicate closed,
                   int maxWriterRows) {
        this.totals = new WriterTotals(maxWriterRows, new SecureRandom()::nextLong, EnvironmentEdgeManager::currentTime);
        metrics.registry().gauge("adreport_writer_rows", "Counter rows whose running totals this aggregator remembers for its writer cells",
                totals::rows);
        metrics.registry().gauge("adreport_writer_bytes", "Heap bytes of the arrays holding those rows' totals, as of the last flush",
                totals::bytes);
        metrics.registry().gauge("adreport_writer_peak_bytes", "The most heap those arrays have held at once (a start-over builds "
                + "the kept rows' new arrays beside the old ones)", totals::peakBytes);
        metrics.registry().gauge("adreport_writer_starts_over", "Times this aggregator started its writer cells over under a new "
                + "writer id to bound that memory (the rows it touched most recently keep theirs; a forgotten row gains a cell when it "
                + "comes back)", totals::startsOver);
        List<String> names = new ArrayList<>(cells.columns());
        for (int c = 0; c < cells.columns(); c++) {
            names.add(Bytes.toString(cells.qualifier(c)));
        }
        this.metricNames = List.copyOf(names);
        this.ids = idsOnly();
        this.durability = durability;
        this.gate = gate;
        this.closed = closed;
        this.layout = layout;
        this.cells = cells;
        this.tables = tables;
        this.pool = pool;
        this.batchRows = batchRows;
        this.metrics = metrics;
    }

    /**
     * Takes the next generation for {@link #send} (from {@code drain}, the buffer's), under the
     * live lock, so that a live read finds its deltas in the buffer or here, never in neither.
     */
    public CoalescingBuffer.Generation take(Supplier<CoalescingBuffer.Generation> drain) {
        live.lock();
        try {
            CoalescingBuffer.Generation g = drain.get();
            inFlight = g.rows();
            inFlightFrom = 0;
            return g;
        } finally {
            live.unlock();
        }
    }

    /** Sends {@code rows} except those of closed days; never throws for HBase failures. */
    public FlushReport send(List<RowCells> rows) {
        long start = System.nanoTime();
        AtomicLong dropped = new AtomicLong();
        List<List<Write>> chunks = new ArrayList<>();
        long timestamp;
        WriterTotals.StartOver startOver = totals.prepare(rows.size()); // the kept rows copied outside the live lock
        live.lock();
        try {
            timestamp = totals.begin(rows.size(), startOver);
            ids = idsOnly();
            inFlightFrom = 0;
        } finally {
            live.unlock();
        }
        // The Puts are built LIVE_STEP rows per hold of the live lock, so that a live read waits for
        // one step, not for a whole generation: rows before inFlightFrom are in the totals, the rest not yet.
        Map<Long, List<Write>> open = new HashMap<>(); // (table, day) -> chunk being filled
        for (int from = 0; from < rows.size(); from += LIVE_STEP) {
            int to = Math.min(rows.size(), from + LIVE_STEP);
            live.lock();
            try {
                for (int i = from; i < to; i++) {
                    RowCells rc = rows.get(i);
                    if (closed.test(rc.epochDay())) {
                        dropped.addAndGet(rc.cellCount());
                        continue;
                    }
                    long key = ((long) rc.table() << 32) | (rc.epochDay() & 0xffffffffL);
                    List<Write> chunk = open.computeIfAbsent(key, k -> new ArrayList<>(Math.min(batchRows, 1024)));
                    long[] rowTotals = totals.add(rc, cells.columns());
                    chunk.add(new Write(rc, put(rc, rowTotals, writerQualifiers(totals.lastWriter()), timestamp)));
                    if (chunk.size() == batchRows) {
                        chunks.add(chunk);
                        open.remove(key);
                    }
                }
                inFlightFrom = to;
            } catch (RuntimeException e) {
                inFlight = List.of(); // building failed: its deltas are sent by no one; never counted twice live
                throw e;
            } finally {
                live.unlock();
            }
        }
        open.values().stream().filter(c -> !c.isEmpty()).forEach(chunks::add);
        totals.measure();
        live.lock();
        try {
            inFlight = List.of(); // every delta is in the totals now
            inFlightFrom = 0;
        } finally {
            live.unlock();
        }

        AtomicLong sentRows = new AtomicLong();
        AtomicLong sentCells = new AtomicLong();
        AtomicLong unapplied = new AtomicLong();
        // The pool has `concurrency` threads: that many calls in flight, the next chunk starts as soon as one ends.
        List<Future<?>> pending = new ArrayList<>(chunks.size());
        for (List<Write> chunk : chunks) {
            pending.add(pool.submit(() -> sendChunk(chunk, sentRows, sentCells, unapplied, dropped)));
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
        if (dropped.get() > 0) {
            metrics.cellsDroppedClosedDay.add(dropped.get());
        }
        long nanos = System.nanoTime() - start;
        metrics.flushSeconds.observeNanos(nanos);
        return new FlushReport(sentRows.get(), sentCells.get(), unapplied.get(), dropped.get(), nanos);
    }

    /**
     * This writer's current total of every metric of each row of {@code table} that
     * {@code request} wants, of days not closed: remembered totals, plus the generation in
     * flight, plus {@code buffer}'s filling generation (see the class comment).
     */
    public LiveCounts.Answer live(int table, LiveCounts.Request request, CoalescingBuffer buffer) {
        int columns = cells.columns();
        Map<java.nio.ByteBuffer, long[]> rows = new HashMap<>();
        if (request.ranges().isEmpty()) { // the first step: no need to wait for a flush's step
            return ids;
        }
        LiveCounts.Selection wanted = request.selection();
        List<byte[]> points = wanted.points(); // exact keys (a fixed series): looked up, not found by a pass
        long writer;
        long next;
        long[] retained;
        live.lock();
        try {
            writer = totals.writer();
            next = totals.next();
            retained = totals.retained();
            // per row: its totals, then the writer id its cells go under (a row not remembered: the current one)
            WriterTotals.RowVisitor remembered = (t, row, day, rowWriter, values) -> {
                if (!closed.test(day) && wanted.wants(row)) {
                    long[] v = Arrays.copyOf(values, columns + 1);
                    v[columns] = rowWriter;
                    rows.put(java.nio.ByteBuffer.wrap(row), v);
                }
            };
            if (points != null) {
                points.forEach(row -> totals.get(table, row, remembered));
            } else {
                totals.forEach(table, remembered);
            }
            java.util.function.Consumer<RowCells> pending = rc -> {
                if (rc.table() == table && !closed.test(rc.epochDay()) && wanted.wants(rc.row())) {
                    long[] sum = rows.computeIfAbsent(java.nio.ByteBuffer.wrap(rc.row()), k -> new long[columns + 1]);
                    if (sum[columns] == 0) {
                        sum[columns] = writer;
                    }
                    int touched = rc.touchedColumns();
                    for (int c = 0; c < columns; c++) {
                        if ((touched & (1 << c)) != 0) {
                            sum[c] += rc.delta(c);
                        }
                    }
                }
            };
            for (int i = inFlightFrom; i < inFlight.size(); i++) {
                pending.accept(inFlight.get(i));
            }
            if (points != null) {
                points.forEach(row -> buffer.row(table, row).ifPresent(pending));
            } else {
                buffer.forEachRow(table, pending);
            }
        } finally {
            live.unlock();
        }
        List<LiveCounts.Row> out = new ArrayList<>(rows.size());
        rows.forEach((k, v) -> out.add(new LiveCounts.Row(k.array(), Arrays.copyOf(v, columns), v[columns])));
        return new LiveCounts.Answer(writer, metricNames, out, next, retained);
    }

    /** An answer without rows: the current, next and retained writer ids. */
    private LiveCounts.Answer idsOnly() {
        return new LiveCounts.Answer(totals.writer(), metricNames, List.of(), totals.next(), totals.retained());
    }

    /** The Put of one row's totals: its touched metrics' writer cells. */
    private Put put(RowCells rc, long[] rowTotals, byte[][] qualifiers, long timestamp) {
        return WriterCells.put(rc.row(), qualifiers, rowTotals, rc.touchedColumns(), timestamp).setDurability(durability);
    }

    /** Writer id {@code id}'s qualifier of each metric column (a few ids are live at once: a small cache, scanned). */
    private byte[][] writerQualifiers(long id) {
        for (int i = 0; i < qualifierIds.length; i++) {
            if (qualifierIds[i] == id && qualifiersById[i] != null) {
                return qualifiersById[i];
            }
        }
        byte[][] q = new byte[cells.columns()][];
        for (int c = 0; c < q.length; c++) {
            q[c] = CounterValues.writerQualifier(cells.qualifier(c), id);
        }
        int i = qualifierVictim;
        qualifierVictim = (qualifierVictim + 1) % qualifierIds.length;
        qualifierIds[i] = id;
        qualifiersById[i] = q;
        return q;
    }

    private void sendChunk(List<Write> chunk, AtomicLong sentRows, AtomicLong sentCells, AtomicLong unapplied,
                           AtomicLong dropped) {
        long day = chunk.get(0).cells().epochDay();
        try (SendGate.Send send = gate.enter(Set.of(day))) {
            if (closed.test(day)) { // read after registering: the watcher either sees this call or it sees the day closed
                send.skip(day);
                dropped.addAndGet(chunk.stream().mapToLong(w -> w.cells().cellCount()).sum());
                return;
            }
            if (!sendChunk(chunk, sentRows, sentCells, unapplied)) {
                send.uncertain(day);
            }
        }
    }

    /** Sends one chunk; false when some of its Puts have an unknown outcome. */
    private boolean sendChunk(List<Write> chunk, AtomicLong sentRows, AtomicLong sentCells, AtomicLong unapplied) {
        TableName name = layout.counterTable(cells.rollup(chunk.get(0).cells().table()));
        List<Row> actions = new ArrayList<>(chunk.size());
        long chunkCells = 0;
        for (Write w : chunk) {
            actions.add(w.put());
            chunkCells += w.cells().cellCount();
        }
        Object[] results = new Object[actions.size()];
        Throwable failure = null;
        try (Table t = tables.openForFlush(name)) {
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
            return true;
        }
        long lost = 0;
        int lostRows = 0;
        for (int i = 0; i < results.length; i++) {
            if (!(results[i] instanceof org.apache.hadoop.hbase.client.Result)) {
                lost += chunk.get(i).cells().cellCount();
                lostRows++;
                if (lostRows <= 3) {
                    LOG.warn("increment of {} row {} not confirmed ({}): left to the nightly job", name,
                            Bytes.toStringBinary(chunk.get(i).cells().row()), String.valueOf(results[i] == null ? failure : results[i]));
                }
            }
        }
        unapplied.addAndGet(lost);
        metrics.flushFailures.inc();
        metrics.cellsUnapplied.add(lost);
        LOG.error("flush batch to {}: {} of {} rows ({} cells) failed or uncertain, not resent (the row's next flush or the nightly job restores them): {}",
                name, lostRows, actions.size(), lost, failure.toString());
        return lostRows == 0;
    }
}
