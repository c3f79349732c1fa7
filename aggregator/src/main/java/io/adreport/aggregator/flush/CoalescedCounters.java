package io.adreport.aggregator.flush;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.coalesce.CoalescingBuffer;
import io.adreport.aggregator.coalesce.Freshness;
import io.adreport.aggregator.coalesce.Reservations;
import io.adreport.aggregator.dayclose.DayCloseWatcher;
import io.adreport.schema.counting.CellSums;
import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.event.Event;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.time.UtcDay;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coalesced counter path: events add their cells to a {@link CoalescingBuffer}; one flusher
 * thread drains it every flush interval, or as soon as it reaches {@code buffer.max.cells} or an
 * admission waits for room, and hands the generation to the {@link Flusher}.
 *
 * <p>Admission ({@link #admit}): ingest reserves, before it stores a request, room for the most
 * cells its events can add ({@code CounterFanout.maxCellsPerEvent} of each event's type), and
 * releases it once they are counted; this is what makes {@code buffer.max.cells} a hard bound
 * (see {@link CoalescingBuffer}).
 *
 * <p>Concurrency: raw-store writer threads call {@link #count} concurrently (the buffer is built
 * for that). Flushes never overlap: the flusher thread, {@link #flushNow()} and {@link #close()}
 * all flush under {@code flushLock}.
 *
 * <p>Day close: cells of a closed day are skipped when added, and the {@link Flusher} drops a
 * closed day's cells before each batch call (registered with the {@code SendGate}), so none is
 * sent once the watcher has published the day — also in a flush that was already running — and
 * the watcher never waits for a whole flush.
 *
 * <p>Freshness: after each flush the generation's lag (first add to flush done) is observed in
 * {@code adreport_freshness_seconds} ({@link Freshness}).
 *
 * <p>Shutdown: {@link #close()} stops the thread and flushes what is left; {@link #abandon()}
 * stops it and drops what is left (a crash, for failure tests).
 */
public final class CoalescedCounters implements CounterWriter {
    private static final Logger LOG = LoggerFactory.getLogger(CoalescedCounters.class);

    private final CounterCells cells;
    private final CoalescingBuffer buffer;
    private final Flusher flusher;
    private final DayCloseWatcher days;
    private final AggregatorMetrics metrics;
    private final Freshness freshness;
    private final ReentrantLock flushLock = new ReentrantLock();
    private final FlushThread thread;

    public CoalescedCounters(CounterCells cells, CoalescingBuffer buffer, Flusher flusher, DayCloseWatcher days,
                             AggregatorMetrics metrics, Duration interval) {
        this.cells = cells;
        this.buffer = buffer;
        this.flusher = flusher;
        this.days = days;
        this.metrics = metrics;
        this.freshness = Freshness.register(metrics.registry(), buffer.clock());
        metrics.registry().gauge("adreport_buffer_cells", "Distinct counter cells waiting in memory", buffer::cells);
        metrics.registry().gauge("adreport_buffer_reserved_cells", "Counter cells reserved by admitted requests not yet counted", buffer::reserved);
        metrics.registry().gauge("adreport_buffer_bytes", "Approximate heap bytes of waiting counter cells", buffer::bytes);
        this.thread = new FlushThread("adreport-flusher", interval, () -> buffer.full() || buffer.roomWanted(),
                this::flushOnce, e -> LOG.error("flush failed unexpectedly", e));
    }

    public CoalescingBuffer buffer() {
        return buffer;
    }

    @Override
    public void count(Event e, boolean attributed) {
        countAll(List.of(new Counted(e, attributed)));
    }

    /**
     * Sums the group's deltas per row on this thread, then adds each distinct row once under one
     * {@link CoalescingBuffer.Adder}. A row of a closed day is skipped there (its cells counted as
     * dropped); the {@link Flusher} drops any that a day close overtakes later.
     *
     * <p>Why sum first: an event fans out into ~46 deltas in ~24 rows, and most rows are shared
     * by many events of a group (every event of a campaign and hour moves the same rollup rows).
     * Added event by event, each row cost a probe of the buffer's concurrent map and atomic adds
     * on cells the other writers add to as well. The thread's {@link CellSums} (primitive arrays
     * no other thread touches, reused group after group) sees each event's rows from
     * {@link CounterCells#forEachRow} without an object per row or delta; the buffer then sees each
     * distinct row of the group once, its key copied once. The sums are exact: addition commutes,
     * and a row's deltas reach the buffer in one generation.
     */
    @Override
    public void countAll(List<Counted> events) {
        if (events.isEmpty()) {
            return;
        }
        GroupState group = GROUP.get();
        CellSums sums = group.sums(cells);
        long deltas = 0;
        long[] skipped = {0};
        CounterCells.RowSink into = (table, key, keyLength, epochDay, columns, values, n) -> {
            if (sums.full()) {
                drainInto(sums, skipped);
            }
            sums.addRow(table, key, keyLength, columns, values, n);
        };
        for (Counted c : events) {
            deltas += cells.forEachRow(c.event(), c.attributed(), group.scratch, into);
        }
        drainInto(sums, skipped);
        metrics.countedEvents.add(events.size());
        metrics.fanoutCells.add(deltas);
        if (skipped[0] > 0) {
            metrics.cellsDroppedClosedDay.add(skipped[0]);
        }
        if (buffer.full()) {
            thread.wakeUp();
        }
    }

    private void drainInto(CellSums sums, long[] skipped) {
        try (CoalescingBuffer.Adder adder = buffer.adder()) {
            sums.drain((table, key, keyLength, touched, values, offset) -> {
                int day = (int) UtcDay.epochDayOfBucketMinute(RowKeyCodec.counterBucketMinute(key));
                if (days.isClosed(day)) {
                    skipped[0] += Long.bitCount(touched);
                } else {
                    adder.addRow(table, key, keyLength, day, touched, values, offset);
                }
            });
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException("a drain into the buffer cannot fail", e); // the sink throws neither
        }
    }

    /**
     * A raw writer thread's counting state, reused group after group: its sums (cleared by each
     * drain; they grow to the largest group's rows, ~13 words a row) and its key buffers.
     */
    private static final class GroupState {
        private CellSums sums;
        private CounterCells.Scratch scratch;
        private CounterCells of;

        CellSums sums(CounterCells cells) {
            if (of != cells) { // one thread may serve two aggregators (tests)
                of = cells;
                sums = new CellSums(cells.columns(), MAX_GROUP_ROWS);
                scratch = cells.scratch();
            }
            return sums;
        }
    }

    /** Rows one thread sums before it drains into the buffer (a group of 1,000 events has ~10,000 at most). */
    private static final int MAX_GROUP_ROWS = 1 << 16;
    private static final ThreadLocal<GroupState> GROUP = ThreadLocal.withInitial(GroupState::new);

    @Override
    public Admission admit(List<Event> events, long timeoutNanos) throws InterruptedException {
        long wanted = 0;
        for (Event e : events) {
            wanted += cells.fanout().maxCellsPerEvent(e.type());
        }
        Reservations.Room room = buffer.reserve(wanted, timeoutNanos, thread::wakeUp);
        return room == null ? null : room::close;
    }

    @Override
    public void flushNow() {
        flushOnce();
    }

    private FlushReport flushOnce() {
        flushLock.lock();
        try {
            CoalescingBuffer.Generation generation = flusher.take(buffer::drainGeneration);
            if (generation.rows().isEmpty()) {
                return FlushReport.EMPTY;
            }
            FlushReport report = flusher.send(generation.rows());
            freshness.flushed(generation);
            return report;
        } finally {
            flushLock.unlock();
        }
    }

    /**
     * This aggregator's current totals of the rows {@code request} wants ({@link Flusher#live});
     * an unknown rollup is refused by name.
     */
    @Override
    public LiveCounts.Answer live(LiveCounts.Request request) {
        int table = cells.tableIndex(request.rollup());
        if (table < 0) {
            throw new IllegalArgumentException("rollup: '" + request.rollup() + "' is not a rollup of this cube");
        }
        return flusher.live(table, request, buffer);
    }

    @Override
    public void abandon() {
        stopThread();
        flushLock.lock(); // a flush already on the wire finishes; nothing after it is sent
        try {
            int dropped = buffer.drainGeneration().rows().size();
            LOG.warn("aggregator aborted: {} buffered counter rows dropped (the nightly job restores them)", dropped);
        } finally {
            flushLock.unlock();
        }
    }

    @Override
    public void close() {
        stopThread();
        FlushReport last = flushOnce();
        LOG.info("final flush on shutdown: {} increments, {} cells, {} unapplied", last.rows(), last.cells(), last.unappliedCells());
    }

    /** Stops the flush thread: it finishes the flush it is in, then exits (waits up to a minute). */
    private void stopThread() {
        thread.stop(Duration.ofMinutes(1), false);
    }
}
