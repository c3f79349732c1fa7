package io.adreport.schema.meta;

import java.time.Instant;
import java.time.LocalDate;

/**
 * A day's row of the meta table, as {@link DayStatusStore} reads it.
 *
 * @param lateSinceClose an event of the day was stored while it was closed, at or after its
 *                       last closing mark: the last recount may have missed it. Compared by
 *                       the cells' server timestamps (one row, one region server clock), so
 *                       the clocks of aggregators and reconcilers do not matter.
 */
public record DayState(LocalDate day, DayStatus status, Instant closingAt, Instant reconciledAt, String driftJson,
                       boolean lateSinceClose) {
    public DayState(LocalDate day) {
        this(day, DayStatus.LIVE, null, null, null, false);
    }

    public boolean closed() {
        return status != DayStatus.LIVE;
    }

    /** Reconciled, and nothing stored for it since its last close that the recount may have missed. */
    public boolean settled() {
        return status == DayStatus.RECONCILED && !lateSinceClose;
    }
}
