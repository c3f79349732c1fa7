package io.adreport.reconcile.profiles;

import io.adreport.schema.meta.AggregatorState;
import io.adreport.schema.time.UtcDay;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

/**
 * Whether the nightly pass writes a day's device views again ({@link ViewRepair}), and why: the
 * one rule, pure, so that it is tested alone.
 *
 * <p><b>Why not every night.</b> The live path writes an impression's view beside its raw row and
 * awaits both before the answer ({@code GroupCommit}): an acknowledged impression's view is
 * stored, and a retry of an unanswered one writes it again (duplicates included). A raw row can
 * lack its view only when (1) a view write failed and the client never retried, which the
 * aggregator records as the day's view gap ({@code DayStatusStore#markViewGap}), or (2) an
 * aggregator stopped between the two writes without retiring (a crash, a kill), which its
 * heartbeat row shows: it lapsed without the retiring heartbeat a clean stop writes after its last
 * writes were awaited ({@link AggregatorState#stoppedUncleanlyBy}). Re-writing every view of every
 * day was a third of the whole pass's CPU (a million Puts, their flushes and compactions, for a
 * day of a million impressions) to restore views that were only missing after (1) or (2).
 *
 * <p><b>The rule.</b> A day's views are written again when asked ({@code reconcile.views.rewrite=always}),
 * when the day has a view gap, or when some aggregator stopped uncleanly no earlier than the day
 * before the day began (it may have been writing an event of the day; events arrive up to the
 * accept window late, so a day after the stop is never affected, and one long before it only on
 * a re-run). Otherwise the pass still checks and trims the histories of the devices it sees, and
 * moves rows across a device secret rotation; it only skips the re-write.
 */
public final class ViewRewrite {
    private ViewRewrite() {
    }

    /** Whether to write the day's views again, and the reason printed with it. */
    public record Decision(boolean rewrite, String reason) {
    }

    /**
     * @param always       {@code reconcile.views.rewrite=always}
     * @param gap          when the day's view gap was last recorded, or null
     * @param aggregators  every aggregator heartbeat row
     * @param liveness     how long a heartbeat without a declared expiry counts as live
     */
    public static Decision decide(LocalDate day, boolean always, Instant gap, List<AggregatorState> aggregators, Instant now,
                                  Duration liveness) {
        if (always) {
            return new Decision(true, "reconcile.views.rewrite=always");
        }
        if (gap != null) {
            return new Decision(true, "a view write failed for an event of the day (recorded " + gap + ")");
        }
        Instant reach = UtcDay.of(day).start().minus(Duration.ofDays(1));
        for (AggregatorState a : aggregators) {
            Instant stopped = a.stoppedUncleanlyBy(now, liveness);
            if (stopped != null && !stopped.isBefore(reach)) {
                return new Decision(true, "aggregator " + a.id() + " stopped without retiring (last heartbeat " + a.heartbeat() + ")");
            }
        }
        return new Decision(false, "no view write failed and no aggregator stopped uncleanly since the day before it");
    }
}
