package io.adreport.reconcile;

import io.adreport.reconcile.report.DriftReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the reconciliation every day at {@code reconcile.time} UTC for yesterday and the
 * {@code reconcile.lookback.days} days before it (oldest first), so late events of those days
 * are counted too; re-running an unchanged day writes nothing.
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

    private final ReconcileConfig config;
    private final Clock clock;
    private final DayTask task;
    private final LongAdder runs = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private ScheduledExecutorService executor;

    public ReconcileScheduler(ReconcileConfig config, Clock clock, DayTask task) {
        this.config = config;
        this.clock = clock;
        this.task = task;
    }

    public ReconcileScheduler(ReconcileConfig config, Clock clock, Reconciler reconciler) {
        this(config, clock, day -> reconciler.reconcile(day, false, null));
    }

    public synchronized void start() {
        if (executor != null) {
            throw new IllegalStateException("already started");
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "reconcile-scheduler");
            t.setDaemon(true);
            return t;
        });
        scheduleNext();
        LOG.info("nightly reconcile at {} UTC for yesterday and {} days before; next run {}", config.time(),
                config.lookbackDays(), nextRun(clock.instant()));
    }

    /** The first run time strictly after {@code now}. */
    public Instant nextRun(Instant now) {
        Instant today = LocalDate.ofInstant(now, ZoneOffset.UTC).atTime(config.time()).toInstant(ZoneOffset.UTC);
        return today.isAfter(now) ? today : today.plus(Duration.ofDays(1));
    }

    /** The days a run at {@code now} reconciles: yesterday and the look-back days, oldest first. */
    public List<LocalDate> daysFor(Instant now) {
        LocalDate yesterday = LocalDate.ofInstant(now, ZoneOffset.UTC).minusDays(1);
        List<LocalDate> days = new ArrayList<>();
        for (int k = config.lookbackDays(); k >= 0; k--) {
            days.add(yesterday.minusDays(k));
        }
        return days;
    }

    /** Reconciles the days due now; returns the reports of the days that succeeded. */
    public List<DriftReport> runOnce() {
        List<DriftReport> done = new ArrayList<>();
        for (LocalDate day : daysFor(clock.instant())) {
            runs.increment();
            try {
                DriftReport r = task.reconcile(day);
                done.add(r);
                LOG.info("nightly reconcile of {}: {} cells corrected, absolute drift {}", day,
                        r.totals().cellsCorrected(), r.totals().absoluteDrift());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.increment();
                return done;
            } catch (Exception e) {
                failures.increment();
                LOG.error("nightly reconcile of {} failed", day, e);
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
