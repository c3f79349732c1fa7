package io.adreport.reconcile.profiles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.meta.AggregatorState;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When the nightly pass writes a day's device views again ({@link ViewRewrite}), case by case. */
class ViewRewriteTest {
    private static final LocalDate DAY = LocalDate.parse("2026-11-20");
    private static final Instant NOW = Instant.parse("2026-11-21T03:00:00Z");
    private static final Duration LIVENESS = Duration.ofSeconds(30);

    /** An instance whose last heartbeat was at {@code beat}, declaring {@code expiry} (null: none). */
    private static AggregatorState agg(String id, String beat, Duration expiry) {
        Instant b = Instant.parse(beat);
        return new AggregatorState(id, b, Set.of(), expiry == null ? null : b.plus(expiry), 1);
    }

    private static ViewRewrite.Decision decide(boolean always, Instant gap, AggregatorState... aggs) {
        return ViewRewrite.decide(DAY, always, gap, List.of(aggs), NOW, LIVENESS);
    }

    @Test
    void a_day_with_only_retired_or_live_aggregators_and_no_gap_is_not_rewritten() {
        ViewRewrite.Decision d = decide(false, null,
                agg("stopped-cleanly", "2026-11-20T12:00:00Z", Duration.ZERO),
                agg("running", "2026-11-21T02:59:59Z", Duration.ofSeconds(30)));
        assertFalse(d.rewrite(), d.reason());
    }

    @Test
    void asked_for_or_a_recorded_gap_rewrites() {
        assertTrue(decide(true, null).rewrite());
        ViewRewrite.Decision d = decide(false, Instant.parse("2026-11-20T08:00:00Z"));
        assertTrue(d.rewrite());
        assertTrue(d.reason().contains("view write failed"), d.reason());
    }

    @Test
    void an_unclean_stop_from_the_day_before_on_rewrites_and_an_older_one_does_not() {
        // stopped (lapsed without retiring) the day before DAY began: it may have written DAY's events (tomorrow's at most)
        ViewRewrite.Decision d = decide(false, null, agg("crashed", "2026-11-19T00:00:00Z", Duration.ofSeconds(30)));
        assertTrue(d.rewrite(), d.reason());
        assertTrue(d.reason().contains("crashed"), d.reason());
        // stopped during DAY
        assertTrue(decide(false, null, agg("crashed", "2026-11-20T17:00:00Z", Duration.ofSeconds(30))).rewrite());
        // stopped long before: none of DAY's events can have been in flight
        assertFalse(decide(false, null, agg("crashed", "2026-11-18T23:59:00Z", Duration.ofSeconds(30))).rewrite());
        // a row without a declared expiry lapses after the liveness window; one still within it is live
        assertTrue(decide(false, null, agg("old-format", "2026-11-20T10:00:00Z", null)).rewrite());
        assertFalse(decide(false, null, agg("old-format", "2026-11-21T02:59:50Z", null)).rewrite());
    }

    @Test
    void a_stop_whose_retirement_was_written_is_clean_and_one_that_still_declares_a_future_is_not_yet_a_stop() {
        AggregatorState retired = agg("a", "2026-11-20T12:00:00Z", Duration.ZERO);
        assertTrue(retired.retired());
        assertEquals(null, retired.stoppedUncleanlyBy(NOW, LIVENESS));
        AggregatorState lapsed = agg("b", "2026-11-20T12:00:00Z", Duration.ofSeconds(30));
        assertFalse(lapsed.retired());
        assertEquals(Instant.parse("2026-11-20T12:00:30Z"), lapsed.stoppedUncleanlyBy(NOW, LIVENESS));
        AggregatorState live = agg("c", "2026-11-21T02:59:45Z", Duration.ofSeconds(30));
        assertEquals(null, live.stoppedUncleanlyBy(NOW, LIVENESS), "live until its declared expiry");
    }
}
