package io.adreport.schema.meta;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Set;

/**
 * An aggregator's heartbeat row of the meta table, as {@link HeartbeatStore} reads it.
 *
 * @param closedDays the days it has stopped, flushed and acknowledged
 * @param expiresAt  when the instance's heartbeat lapses by its own declaration (null for rows
 *                   written without one: the reader's liveness window applies)
 * @param instances  the aggregator.instances it declared (0: not declared)
 * @param liveUrl    the base URL where it answers live-counts requests ({@code LiveCounts}), or null
 */
public record AggregatorState(String id, Instant heartbeat, Set<LocalDate> closedDays, Instant expiresAt, int instances,
                              String liveUrl) {
    public AggregatorState {
        closedDays = Set.copyOf(closedDays);
    }

    /** Without an advertised live-counts address. */
    public AggregatorState(String id, Instant heartbeat, Set<LocalDate> closedDays, Instant expiresAt, int instances) {
        this(id, heartbeat, closedDays, expiresAt, instances, null);
    }

    /**
     * Whether the instance counts as running at {@code now}: before its declared expiry, or,
     * without one, a heartbeat within {@code liveness}.
     */
    public boolean live(Instant now, Duration liveness) {
        if (heartbeat == null) {
            return false;
        }
        Instant until = expiresAt != null ? expiresAt : heartbeat.plus(liveness);
        return now.isBefore(until);
    }

    /**
     * Whether the instance retired itself (a clean stop: its last heartbeat declared an expiry of
     * now, after its last writes were awaited). A crash, a kill or a stop whose retirement failed
     * leaves an expiry after its last heartbeat.
     */
    public boolean retired() {
        return heartbeat != null && expiresAt != null && !expiresAt.isAfter(heartbeat);
    }

    /**
     * When the instance stopped writing, at the latest, if it stopped without retiring and its
     * heartbeat has lapsed at {@code now}: its declared expiry (or last heartbeat plus
     * {@code liveness}); null for an instance that is live or retired.
     */
    public Instant stoppedUncleanlyBy(Instant now, Duration liveness) {
        if (heartbeat == null || retired() || live(now, liveness)) {
            return null;
        }
        return expiresAt != null ? expiresAt : heartbeat.plus(liveness);
    }
}
