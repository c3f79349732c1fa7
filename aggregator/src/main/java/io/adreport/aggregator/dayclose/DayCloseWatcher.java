package io.adreport.aggregator.dayclose;

import io.adreport.schema.meta.AggregatorState;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.time.UtcDay;
import io.adreport.schema.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The aggregator's side of the day-close handshake.
 *
 * <p>Every poll interval it reads the days in the watch window that are closing or reconciled.
 * When the set grows it (1) publishes the new set, which every sender reads after registering
 * with the {@link SendGate} (a flush batch call, or one event's naive increments), (2) asks the
 * gate which closed days are quiet — no registered call carries their cells, no uncertain call
 * of theirs may still be applied — waiting up to one poll interval, and (3) writes
 * {@code HeartbeatStore.heartbeat(id, quietDays)}: the acknowledgement the nightly job waits for means
 * "no increment of these days is in flight or will be sent by me". A day that is not quiet yet is
 * acknowledged by a later poll; heartbeats go on meanwhile, so the job keeps counting this
 * aggregator as live and waits for it. Without news it heartbeats every heartbeat interval.
 *
 * <p>Why the acknowledgement does not wait for a running flush: a flush is many batch calls;
 * each one registers its day, reads the closed days, and skips a closed day's cells instead of
 * sending them (those events are stored raw: the recount counts them). So only the calls already
 * on the wire for the closing day are waited for — at most one round trip — not the rest of the
 * flush. Why no increment of a day lands after its acknowledgement:
 * <ol>
 *   <li>No call carrying day D is <em>started</em> after D is published: the gate orders each
 *       registration against the watcher's check, so a sender that registered after the check
 *       reads D as closed and skips it (see {@link SendGate}).</li>
 *   <li>Every call carrying D that started before has <em>returned</em> before D is acknowledged.
 *       Returned with results, its increments were applied before the acknowledgement.</li>
 *   <li>Returned with an error, the outcome is unknown: the request may have been applied, may
 *       have failed, or may still wait in a region server's call queue. The client's retries
 *       reuse the operation's nonce, so they cannot apply it twice, and a region server drops a
 *       queued call that has not started by its deadline (arrival + the client's RPC timeout).
 *       The gate therefore keeps D unacknowledged for one RPC timeout after such a call
 *       returned: any attempt that reached the server before the call returned and is still
 *       queued has passed its deadline by then.</li>
 * </ol>
 * Residual risk, named: a call that a region server started before its deadline and is still
 * executing (blocked on a row lock or a full MemStore) past the hold, or a request that reaches
 * the server only after the client gave up on it. The day is then reconciled
 * again the next night only if something else marks it (late events, an unacknowledged close).
 *
 * <p>Late events: {@link #noteLate} records a closed day for which an event was stored; the next
 * poll writes {@code DayStatusStore.markLate(day)} so that a day reconciled before that event is
 * reconciled again the next night. (The mark follows the raw write: a crash between the two loses
 * the mark, not the event.)
 *
 * <p>View gaps: {@link #noteViewGap} records a day of which an event's device view could not be
 * written (its answer failed; a client that never retries leaves a raw row without its view). The
 * next poll writes {@code DayStatusStore.markViewGap(day)} before it heartbeats, so a day whose
 * close this instance acknowledges has its gaps recorded, and the nightly pass writes that day's
 * views again. {@link #close} retires the instance only once every gap is written: an instance
 * that could not write them stops as a crash would, which the nightly pass treats alike. On
 * {@link #start}, a heartbeat row of the same id that was never retired means the previous run
 * stopped uncleanly, maybe between an event's raw write and its view write: every day an event
 * then in flight could have (the watch window back from its last heartbeat, up to tomorrow) gets
 * a view gap.
 *
 * <p>Concurrency: one scheduler thread owns polling and heartbeats; {@link #isClosed} and
 * {@link #closedDays()} read a volatile array that is never changed once published, safe from
 * any thread. A day once seen closed stays closed
 * (a re-run of the nightly job recomputes it again), so the set only grows within the window.
 *
 * <p>Failure: a failed meta read or heartbeat is logged and counted and retried next poll; the
 * old set stays in force, and the missing acknowledgement keeps the nightly job waiting.
 */
public final class DayCloseWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DayCloseWatcher.class);

    private final DayStatusStore meta;
    private final HeartbeatStore heartbeats;
    private final Clock clock;
    private final String aggregatorId;
    private final int windowDays;
    private final Duration heartbeatInterval;
    private final SendGate gate;
    private final int instances;
    private final ScheduledExecutorService scheduler;
    private final LongAdder failures = new LongAdder();
    private final Set<Long> lateDays = ConcurrentHashMap.newKeySet();
    private final Set<Long> viewGapDays = ConcurrentHashMap.newKeySet();
    /** Closed epoch days, sorted: {@link #isClosed} is asked per counter cell (a binary search, no boxed Long). */
    private volatile long[] closedEpochDays = new long[0];
    private Duration quietWait = Duration.ofSeconds(1); // scheduler thread only
    private Set<LocalDate> acknowledged = Set.of(); // scheduler thread only
    private long lastHeartbeatMillis = Long.MIN_VALUE; // scheduler thread only

    /** @param instances the aggregator.instances setting, declared in every heartbeat */
    public DayCloseWatcher(DayStatusStore meta, HeartbeatStore heartbeats, Clock clock, String aggregatorId, int windowDays,
                           Duration heartbeatInterval, SendGate gate, int instances) {
        this.instances = instances;
        this.meta = meta;
        this.heartbeats = heartbeats;
        this.clock = clock;
        this.aggregatorId = aggregatorId;
        this.windowDays = windowDays;
        this.heartbeatInterval = heartbeatInterval;
        this.gate = gate;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("adreport-dayclose"));
    }

    /** Reads the meta table once synchronously (so the first events see closed days), then polls. */
    public void start(Duration poll) {
        quietWait = poll;
        notePreviousCrash();
        pollOnce();
        scheduler.scheduleWithFixedDelay(this::pollOnce, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** True when counters of this UTC epoch day must not be incremented live. */
    public boolean isClosed(long epochDay) {
        return Arrays.binarySearch(closedEpochDays, epochDay) >= 0;
    }

    public Set<Long> closedDays() {
        return Arrays.stream(closedEpochDays).boxed().collect(Collectors.toUnmodifiableSet());
    }

    /** An event of closed {@code epochDay} was stored: the next poll marks the day late in meta. */
    public void noteLate(long epochDay) {
        lateDays.add(epochDay);
    }

    /** A device view of an event of {@code epochDay} could not be written: the next poll records the day's view gap. */
    public void noteViewGap(long epochDay) {
        viewGapDays.add(epochDay);
    }

    public long failures() {
        return failures.sum();
    }

    /** One poll: read, publish, wait for quiet, acknowledge. Package-visible for tests; thread-confined to the scheduler otherwise. */
    synchronized void pollOnce() {
        try {
            markViewGaps(); // before the heartbeat that may acknowledge their day's close
            LocalDate today = UtcDay.today(clock).date();
            Set<LocalDate> closed = meta.closedDays(today.minusDays(windowDays), today.plusDays(1));
            long[] days = LongStream.concat(Arrays.stream(closedEpochDays), closed.stream().mapToLong(LocalDate::toEpochDay))
                    .distinct().sorted().toArray();
            if (days.length > closedEpochDays.length) { // the set only grows
                closedEpochDays = days; // published before the gate is asked: see SendGate
                LOG.info("days closed for live counting: {}", closed);
            }
            Set<LocalDate> quiet = quietOf(closed);
            boolean news = !acknowledged.containsAll(quiet);
            long now = clock.millis();
            if (news || lastHeartbeatMillis == Long.MIN_VALUE || now - lastHeartbeatMillis >= heartbeatInterval.toMillis()) {
                heartbeats.heartbeat(aggregatorId, quiet, expiry(), instances);
                acknowledged = Set.copyOf(quiet);
                lastHeartbeatMillis = now;
            }
            markLate();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failures.increment();
            LOG.warn("day-close poll failed (will retry): {}", e.toString());
        }
    }

    /**
     * The expiry each heartbeat declares: three heartbeat intervals (or three polls, if longer), so
     * that one or two slow or failed polls do not make a running instance look dead, and a dead
     * one stops holding up a day close after that long.
     */
    Duration expiry() {
        Duration beat = heartbeatInterval.compareTo(quietWait) > 0 ? heartbeatInterval : quietWait;
        return beat.multipliedBy(3);
    }

    private Set<LocalDate> quietOf(Set<LocalDate> closed) throws InterruptedException {
        Set<Long> epochDays = new HashSet<>();
        closed.forEach(d -> epochDays.add(d.toEpochDay()));
        Set<Long> quiet = gate.quiet(epochDays, acknowledged.containsAll(closed) ? Duration.ZERO : quietWait);
        Set<LocalDate> out = new HashSet<>();
        for (LocalDate d : closed) {
            if (quiet.contains(d.toEpochDay())) {
                out.add(d);
            } else {
                LOG.info("close of {} not acknowledged yet: increments of it are in flight or uncertain", d);
            }
        }
        return out;
    }

    private void markViewGaps() {
        writeEach(viewGapDays, meta::markViewGap);
    }

    /** A previous run of this id that never retired: view gaps on every day it may have been writing (see the class comment). */
    private void notePreviousCrash() {
        try {
            AggregatorState previous = heartbeats.aggregator(aggregatorId);
            if (previous == null || previous.heartbeat() == null || previous.retired()) {
                return;
            }
            LocalDate from = UtcDay.of(previous.heartbeat()).date().minusDays(windowDays);
            LocalDate to = UtcDay.today(clock).date().plusDays(1);
            for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
                viewGapDays.add(d.toEpochDay());
            }
            LOG.warn("aggregator {} did not retire when it last stopped (last heartbeat {}): device views of {} to {} may be missing; "
                    + "their view gaps are recorded, and the nightly pass writes those days' views again", aggregatorId,
                    previous.heartbeat(), from, to);
        } catch (RuntimeException e) {
            failures.increment();
            LOG.warn("could not read this aggregator's previous heartbeat ({}); if it crashed, its view gaps are not recorded by this run",
                    e.toString());
        }
    }

    private void markLate() {
        writeEach(lateDays, meta::markLate);
    }

    /** Writes each noted day with {@code write}; a day whose write fails stays noted (and the failure is thrown). */
    private static void writeEach(Set<Long> noted, Consumer<LocalDate> write) {
        for (Long day : List.copyOf(noted)) {
            if (noted.remove(day)) { // removed before the write: a note that arrives meanwhile is written next poll
                try {
                    write.accept(UtcDay.ofEpochDay(day).date());
                } catch (RuntimeException e) {
                    noted.add(day);
                    throw e;
                }
            }
        }
    }

    /**
     * Stops polling and retires this instance in meta (a heartbeat whose expiry is now), so that a
     * day close does not wait for it. Called after the last flush: nothing is sent after it.
     */
    @Override
    public void close() {
        stopPolling();
        try {
            markViewGaps();
        } catch (RuntimeException e) {
            LOG.warn("could not record the view gaps of {} day(s) ({}); aggregator {} is not retired, so the nightly pass "
                    + "treats its stop as unclean", viewGapDays.size(), e.toString(), aggregatorId);
            return;
        }
        try {
            heartbeats.heartbeat(aggregatorId, acknowledged, Duration.ZERO, instances);
        } catch (RuntimeException e) {
            LOG.warn("could not retire aggregator {} in meta ({}); a day close waits for its heartbeat to expire", aggregatorId,
                    e.toString());
        }
    }

    /** Stops polling and heartbeats without retiring: what a crash leaves (the heartbeat expires). */
    public void abort() {
        scheduler.shutdownNow();
    }

    private void stopPolling() {
        scheduler.shutdown(); // lets a poll in progress finish: interrupting HBase calls only produces noise
        try {
            if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
