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
}
