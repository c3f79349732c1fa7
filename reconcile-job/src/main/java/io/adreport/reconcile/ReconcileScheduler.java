package io.adreport.reconcile;

import io.adreport.schema.time.UtcDay;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the reconciliation every day at {@code reconcile.time} UTC over the look-back window —
 * yesterday and the {@code reconcile.lookback.days} days before it — oldest first. A day of the
 * window is due unless it is settled: reconciled, and no event stored for it since its last
 * close ({@code DayState.settled}). So a day missed during downtime, a day whose run
 * failed (left {@code closing}), and a reconciled day that got late events since (the aggregator
 * marks it) are all reconciled; an unchanged reconciled day costs nothing.
 *
 * <p>Catch-up: {@link #start()} first runs, at once, the due days whose own nightly run time
 * has already passed, then follows the schedule — but only after downtime: when the meta table
 * knows a closed or reconciled day in the window or the day before it. A fresh stack (every day
 * live) waits for the nightly time, so that it never closes a day early.
 *
 * <p>Concurrency: one daemon thread owns the schedule; {@link #runOnce()} may also be called
 * by a test or an operator — the {@link Reconciler} serialises runs. Each run schedules the next
 * from the injected {@link Clock}; if the thread wakes early (clock adjusted) it waits again.
 * Failure: a failed day is logged and counted ({@link #failures()}) and does not stop the
 * other days or the next night; the day stays closing and is retried by the look-back.
 */
public final class ReconcileScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReconcileScheduler.class);

    /** Reconciles one day; the production task is {@code day -> reconciler.reconcile(day, false, null)}. */
    @FunctionalInterface
    public interface DayTask {
        DriftReport reconcile(LocalDate day) throws Exception;
    }

    /** The states of the days in a range (the meta table in production). */
    @FunctionalInterface
    public interface DayStates {
        Map<LocalDate, DayState> days(LocalDate from, LocalDate toInclusive);
    }

    private final ReconcileConfig config;
    private final Clock clock;
    private final DayStates states;
    private final DayTask task;
    private final LongAdder runs = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private ScheduledExecutorService executor;

    public ReconcileScheduler(ReconcileConfig config, Clock clock, DayStates states, DayTask task) {
        this.config = config;
        this.clock = clock;
        this.states = states;
        this.task = task;
    }

    /** Every day of the window is due (no day states known). */
    public ReconcileScheduler(ReconcileConfig config, Clock clock, DayTask task) {
        this(config, clock, (from, to) -> Map.of(), task);
    }

    public ReconcileScheduler(ReconcileConfig config, Clock clock, Reconciler reconciler) {
        this(config, clock, reconciler::dayStates, day -> reconciler.reconcile(day, false, null));
    }

    public synchronized void start() {
        if (executor != null) {
            throw new IllegalStateException("already started");
        }
        executor = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("reconcile-scheduler"));
        Instant now = clock.instant();
        if (!catchUpDays(now).isEmpty()) {
            executor.execute(() -> runDays(catchUpDays(clock.instant()), "catch-up"));
        }
        scheduleNext();
        LOG.info("nightly reconcile at {} UTC for yesterday and {} days before; next run {}", config.time(),
                config.lookbackDays(), nextRun(clock.instant()));
    }

    /** The first run time strictly after {@code now}. */
    public Instant nextRun(Instant now) {
        Instant today = UtcDay.dateOf(now).atTime(config.time()).toInstant(ZoneOffset.UTC);
        return today.isAfter(now) ? today : today.plus(Duration.ofDays(1));
    }

    /** The window of a run at {@code now}: yesterday and the look-back days, oldest first. */
    public List<LocalDate> window(Instant now) {
        LocalDate yesterday = UtcDay.dateOf(now).minusDays(1);
        List<LocalDate> days = new ArrayList<>();
        for (int k = config.lookbackDays(); k >= 0; k--) {
            days.add(yesterday.minusDays(k));
        }
        return days;
    }

    /** The days a run at {@code now} reconciles: the window's days that are not settled, oldest first. */
    public List<LocalDate> daysFor(Instant now) {
        List<LocalDate> window = window(now);
        Map<LocalDate, DayState> known = states.days(window.get(0), window.get(window.size() - 1));
        List<LocalDate> due = new ArrayList<>();
        for (LocalDate d : window) {
            DayState s = known.get(d);
            if (s == null || !s.settled()) {
                due.add(d);
            }
        }
        return due;
    }

    /**
     * After downtime, the due days whose nightly run time (the day after, at {@code reconcile.time})
     * is not after {@code now}; none when no day of the window or the day before it was ever closed.
     */
    public List<LocalDate> catchUpDays(Instant now) {
        List<LocalDate> window = window(now);
        boolean ranBefore = states.days(window.get(0).minusDays(1), window.get(window.size() - 1)).values().stream()
                .anyMatch(DayState::closed);
        List<LocalDate> out = new ArrayList<>();
        if (!ranBefore) {
            return out;
        }
        for (LocalDate d : daysFor(now)) {
            if (!d.plusDays(1).atTime(config.time()).toInstant(ZoneOffset.UTC).isAfter(now)) {
                out.add(d);
            }
        }
        return out;
    }

    /** Reconciles the days due now; returns the reports of the days that succeeded. */
    public List<DriftReport> runOnce() {
        return runDays(daysFor(clock.instant()), "nightly");
    }

    private List<DriftReport> runDays(List<LocalDate> days, String why) {
        List<DriftReport> done = new ArrayList<>();
        if (!days.isEmpty()) {
            LOG.info("{} reconcile of {}", why, days);
        }
        for (LocalDate day : days) {
            runs.increment();
            try {
                DriftReport r = task.reconcile(day);
                done.add(r);
                LOG.info("{} reconcile of {}: {} cells corrected, absolute drift {}", why, day,
                        r.totals().cellsCorrected(), r.totals().absoluteDrift());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.increment();
                return done;
            } catch (Exception e) {
                failures.increment();
                LOG.error("{} reconcile of {} failed", why, day, e);
            }
        }
        return done;
    }

    public long runs() {
        return runs.sum();
    }

    public long failures() {
        return failures.sum();
    }

    private synchronized void scheduleNext() {
        if (executor == null || executor.isShutdown()) {
            return;
        }
        Instant now = clock.instant();
        long delay = Math.max(0, Duration.between(now, nextRun(now)).toMillis());
        Instant target = nextRun(now);
        executor.schedule(() -> fire(target), delay, TimeUnit.MILLISECONDS);
    }

    private void fire(Instant target) {
        try {
            Instant now = clock.instant();
            if (now.isBefore(target.minusSeconds(1))) {
                executor.schedule(() -> fire(target), Duration.between(now, target).toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            runOnce();
        } catch (RuntimeException e) {
            failures.increment();
            LOG.error("nightly reconcile failed", e);
        }
        scheduleNext();
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.shutdownNow();
            try {
                executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
