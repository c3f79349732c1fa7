package io.adreport.reconcile;

import io.adreport.schema.meta.AggregatorState;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The day-close handshake that runs before the recount of day D, so that no live increment races
 * the correction.
 *
 * <h2>Protocol</h2>
 * <ol>
 *   <li>Mark D {@code closing} in the meta table ({@link DayStatusStore#markClosing}); read back
 *       the stored closing time T.</li>
 *   <li>Every aggregator watches the meta table. When it sees D closed it stops incrementing D's
 *       counters (events for D are still stored in the raw table — and counted as late by the
 *       aggregator — but no longer counted live), flushes the deltas for D it already holds, and
 *       only then acknowledges: a heartbeat whose set of closed days contains D.</li>
 *   <li>Wait until every <em>live</em> aggregator (before the expiry its last heartbeat declared,
 *       or, for a heartbeat without one, last heartbeat within the liveness window) has
 *       acknowledged D, or until the grace period after T has passed. Aggregators that are not
 *       live are not waited for; silent live ones are logged and listed in the drift report.
 *       An acknowledgement of D from an earlier close counts (a re-run does not wait for the
 *       next heartbeat, up to one {@code heartbeat.interval.ms} of the aggregator when it has no
 *       news): see "Why an earlier acknowledgement is enough" below.</li>
 *   <li>Run the job; then mark D {@code reconciled} with the drift report. A day, once closed,
 *       stays closed for live counting; re-running D later repeats steps 1–4 and is idempotent
 *       (the job writes absolute values, and only where they differ).</li>
 * </ol>
 *
 * <h2>Why no concurrent increment is lost or counted twice</h2>
 * The aggregator stores an event's raw row <em>before</em> it counts it. So every increment of D
 * ever applied belongs to a raw row that existed before that increment was flushed, and every
 * flush for D happened before its aggregator's acknowledgement. The job starts reading after
 * all acknowledgements, so (a) each raw row behind an applied increment is read, and its cells
 * are overwritten with a count that includes it exactly once — nothing is double-counted by
 * the correction; (b) no increment for D is applied after the job's Put — nothing the job
 * writes is later shifted. An event stored for D while the job runs may or may not be seen by
 * the scan; either way it was not counted live (D is closed), so the counters are short by at
 * most those events, never over, and the next run for D (the nightly look-back) counts them
 * exactly. A crashed aggregator's unflushed deltas are simply absent: the recount restores them.
 *
 * <h2>Why an earlier acknowledgement is enough</h2>
 * A heartbeat row can only name D after D was first marked closing, and a day once closed is
 * never opened again. Within one aggregator process the set of closed days only grows, so the
 * process that acknowledged D never counts D live again. The row is live only while its last
 * heartbeat's writer is: a later process with the same {@code aggregator.id} can only start once
 * the row expired (the aggregator's {@code InstanceCheck}), and it writes a heartbeat only after
 * a successful read of the meta table, which shows D closed (the first close of D came before
 * the old process's acknowledgement). So whoever wrote the live row's last heartbeat is stopped
 * for D. A heartbeat after the new mark T would prove nothing more than that liveness does.
 *
 * <p>Several aggregator instances: each heartbeats under its own id with a declared expiry, and
 * the close waits for every one that is live. One that died is waited for until its expiry (a
 * few heartbeat intervals), then listed as not live: its unflushed deltas are simply absent, and
 * the recount restores them. One that stopped cleanly retired itself (expiry = its stop time)
 * after its last flush, so it is not waited for at all.
 *
 * <p>Residual risk, by choice: an aggregator that is alive but does not acknowledge within the
 * grace period (or one paused longer than the liveness window) could still flush deltas for D
 * after the job wrote D. HBase increments cannot be fenced, so the job does not wait forever:
 * it proceeds, names the aggregator in the report, and the next run repairs any such delta.
 *
 * <p>Concurrency: not thread-safe; {@link Reconciler} runs one close at a time. Time comes from
 * the injected {@link Clock} and waiting from the injected {@link Sleeper}, so tests advance a
 * clock instead of sleeping.
 */
public final class DayCloseProtocol {
    private static final Logger LOG = LoggerFactory.getLogger(DayCloseProtocol.class);

    /** Waits; {@code Thread::sleep} in production, a clock advance in tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;

        Sleeper REAL = d -> Thread.sleep(Math.max(1, d.toMillis()));
    }

    /**
     * How the close went.
     *
     * @param closingAt      the stored closing mark
     * @param acknowledged   live aggregators that acknowledged D (in this close or an earlier one)
     * @param unacknowledged live aggregators still silent when the grace period ended
     * @param notLive        aggregators known to the meta table whose heartbeat is too old
     */
    public record Outcome(java.time.LocalDate day, Instant closingAt, List<String> acknowledged,
                          List<String> unacknowledged, List<String> notLive) {
        public Outcome {
            acknowledged = List.copyOf(acknowledged);
            unacknowledged = List.copyOf(unacknowledged);
            notLive = List.copyOf(notLive);
        }
    }

    private final DayStatusStore meta;
    private final HeartbeatStore heartbeats;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Duration grace;
    private final Duration liveness;
    private final Duration poll;

    public DayCloseProtocol(DayStatusStore meta, HeartbeatStore heartbeats, Clock clock, Sleeper sleeper, Duration grace, Duration liveness, Duration poll) {
        this.meta = meta;
        this.heartbeats = heartbeats;
        this.clock = clock;
        this.sleeper = sleeper;
        this.grace = grace;
        this.liveness = liveness;
        this.poll = poll;
    }

    /** Steps 1–3: marks {@code day} closing and waits for the acknowledgements or the grace period. */
    public Outcome close(LocalDate day) throws InterruptedException {
        meta.markClosing(day);
        Instant closingAt = meta.day(day).closingAt();
        Instant deadline = closingAt.plus(grace);
        while (true) {
            Instant now = clock.instant();
            List<String> acked = new ArrayList<>();
            List<String> pending = new ArrayList<>();
            List<String> notLive = new ArrayList<>();
            for (AggregatorState a : heartbeats.aggregators()) {
                if (!a.live(now, liveness)) {
                    notLive.add(a.id());
                } else if (a.closedDays().contains(day)) {
                    acked.add(a.id());
                } else {
                    pending.add(a.id());
                }
            }
            if (pending.isEmpty()) {
                LOG.info("day {} closed: acknowledged by {}{}", day, acked, notLive.isEmpty() ? "" : "; not live: " + notLive);
                return new Outcome(day, closingAt, acked, List.of(), notLive);
            }
            if (!now.isBefore(deadline)) {
                LOG.warn("day {}: grace period of {} ms passed; proceeding without the acknowledgement of {} (acknowledged: {})",
                        day, grace.toMillis(), pending, acked);
                return new Outcome(day, closingAt, acked, pending, notLive);
            }
            Duration left = Duration.between(now, deadline);
            sleeper.sleep(left.compareTo(poll) < 0 ? left : poll);
        }
    }
}
