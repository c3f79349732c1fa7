package io.adreport.aggregator.coalesce;

import io.adreport.schema.metrics.Metrics;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * How stale the live counters are: for each flushed generation, the time from its first delta
 * being added to the moment the flush that sent it returned.
 *
 * <p>An event's deltas are added by the raw-store writer after its raw row is stored and before
 * its request is answered, so a generation's first add is no later than the acknowledgement of
 * any event in it. The value observed is therefore the worst lag, within that generation, from
 * an acknowledgement to the counts being written (visible to reads): an upper bound for every
 * event it carries. Idle generations (nothing added) observe nothing. A flush whose increments
 * partly failed still observes: the failed cells are counted apart
 * ({@code adreport_increment_cells_unapplied_total}) and restored by the nightly job.
 *
 * <p>Times come from the injected {@link Clock}, the same one that stamped the first add.
 */
public final class Freshness {
    /** Buckets in seconds: the target is ~1.5 s; a flusher that falls behind shows in the upper ones. */
    public static final double[] BUCKETS = {0.1, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 5, 10, 30, 60, 120, 300};

    private final Clock clock;
    private final Metrics.Histogram lagSeconds;

    public Freshness(Clock clock, Metrics.Histogram lagSeconds) {
        this.clock = clock;
        this.lagSeconds = lagSeconds;
    }

    /** Registers {@code adreport_freshness_seconds} on {@code registry}. */
    public static Freshness register(Metrics registry, Clock clock) {
        return new Freshness(clock, registry.histogram("adreport_freshness_seconds",
                "Per flushed counter generation: seconds from its first delta (counted just before the event's "
                        + "acknowledgement) until the flush that wrote it returned; the worst lag of that generation",
                BUCKETS));
    }

    /** Records {@code flushed}, whose flush has just returned; returns the lag observed, if any. */
    public Optional<Duration> flushed(CoalescingBuffer.Generation flushed) {
        if (flushed.firstAdd() == null || flushed.rows().isEmpty()) {
            return Optional.empty();
        }
        Duration lag = Duration.between(flushed.firstAdd(), clock.instant());
        if (lag.isNegative()) {
            lag = Duration.ZERO; // a clock stepped back: never report a negative lag
        }
        lagSeconds.observe(lag.toNanos() / 1e9);
        return Optional.of(lag);
    }
}
