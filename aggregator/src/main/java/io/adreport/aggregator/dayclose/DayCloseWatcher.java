package io.adreport.aggregator.dayclose;

import io.adreport.schema.meta.MetaStore;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The aggregator's side of the day-close handshake.
 *
 * <p>Every poll interval it reads the days in the watch window that are closing or reconciled.
 * When the set grows it (1) publishes the new set, which the counter path reads before each
 * flush and each naive increment, (2) waits on the {@link SendGate} for every send that may have
 * read the old set, and only then (3) writes {@code MetaStore.heartbeat(id, closedDays)}: the
 * acknowledgement the nightly job waits for means "no increment of these days is in flight or
 * will be sent by me". Without news it heartbeats every heartbeat interval.
 *
 * <p>Concurrency: one scheduler thread owns polling and heartbeats; {@link #closedDays()} is a
 * volatile read of an immutable set, safe from any thread. A day once seen closed stays closed
 * (a re-run of the nightly job recomputes it again), so the set only grows within the window.
 *
 * <p>Failure: a failed meta read or heartbeat is logged and counted and retried next poll; the
 * old set stays in force, and the missing acknowledgement keeps the nightly job waiting.
 */
public final class DayCloseWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DayCloseWatcher.class);

    private final MetaStore meta;
    private final Clock clock;
    private final String aggregatorId;
    private final int windowDays;
    private final Duration heartbeatInterval;
    private final SendGate gate;
    private final ScheduledExecutorService scheduler;
    private final LongAdder failures = new LongAdder();
    private volatile Set<Long> closedEpochDays = Set.of();
    private Set<LocalDate> acknowledged = Set.of(); // scheduler thread only
    private long lastHeartbeatMillis = Long.MIN_VALUE; // scheduler thread only

    public DayCloseWatcher(MetaStore meta, Clock clock, String aggregatorId, int windowDays, Duration heartbeatInterval, SendGate gate) {
        this.meta = meta;
        this.clock = clock;
        this.aggregatorId = aggregatorId;
        this.windowDays = windowDays;
        this.heartbeatInterval = heartbeatInterval;
        this.gate = gate;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "adreport-dayclose");
            t.setDaemon(true);
            return t;
        });
    }

    /** Reads the meta table once synchronously (so the first events see closed days), then polls. */
    public void start(Duration poll) {
        pollOnce();
        scheduler.scheduleWithFixedDelay(this::pollOnce, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** True when counters of this UTC epoch day must not be incremented live. */
    public boolean isClosed(long epochDay) {
        return closedEpochDays.contains(epochDay);
    }

    public Set<Long> closedDays() {
        return closedEpochDays;
    }

    public long failures() {
        return failures.sum();
    }

    /** One poll: read, publish, quiesce, acknowledge. Package-visible for tests; thread-confined to the scheduler otherwise. */
    synchronized void pollOnce() {
        try {
            LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
            Set<LocalDate> closed = meta.closedDays(today.minusDays(windowDays), today.plusDays(1));
            Set<Long> days = new HashSet<>(closedEpochDays);
            closed.forEach(d -> days.add(d.toEpochDay()));
            boolean news = !acknowledged.containsAll(closed);
            if (news) {
                closedEpochDays = Set.copyOf(days);
                gate.quiesce();
                LOG.info("days closed for live counting: {}", closed);
            }
            long now = clock.millis();
            if (news || lastHeartbeatMillis == Long.MIN_VALUE || now - lastHeartbeatMillis >= heartbeatInterval.toMillis()) {
                meta.heartbeat(aggregatorId, closed);
                acknowledged = Set.copyOf(closed);
                lastHeartbeatMillis = now;
            }
        } catch (RuntimeException e) {
            failures.increment();
            LOG.warn("day-close poll failed (will retry): {}", e.toString());
        }
    }

    @Override
    public void close() {
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
