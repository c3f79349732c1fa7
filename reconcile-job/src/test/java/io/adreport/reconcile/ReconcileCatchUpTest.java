package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Which days the scheduler reconciles, against a real meta table: every unsettled day of the
 * look-back window, oldest first — after downtime at once, and a reconciled day again the night
 * after it got late events. The task stands in for the reconciler and records its day states.
 */
@ExtendWith(HBaseExtension.class)
class ReconcileCatchUpTest {
    private static final ReconcileConfig CONFIG = ReconcileConfig.of(Map.of("reconcile.time", "03:00", "reconcile.lookback.days", "3"));

    private static DayStatusStore meta(MiniHBase hbase, MutableClock clock, String hint) throws Exception {
        TableLayout layout = new TableLayout(ReconcileJobTest.smallCube(), hbase.freshNamespace(hint));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        return new DayStatusStore(hbase.connection(), layout, clock);
    }

    /** What the reconciler records: closing, then reconciled. */
    private static DriftReport reconcile(DayStatusStore meta, LocalDate day) throws InterruptedException {
        Thread.sleep(2); // the server timestamp of this close is after any earlier late mark
        meta.markClosing(day);
        DriftReport r = new DriftReport(day, DriftReport.RECONCILED, Instant.EPOCH, Instant.EPOCH, 0, false,
                new DriftReport.Totals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), Map.of(), List.of());
        meta.markReconciled(day, r.toJson());
        return r;
    }

    @Test
    void after_a_three_day_gap_start_reconciles_every_unsettled_day_of_the_window_oldest_first(MiniHBase hbase) throws Exception {
        LocalDate today = LocalDate.of(2026, 11, 30);
        MutableClock clock = new MutableClock(today.minusDays(3).atTime(3, 0).toInstant(ZoneOffset.UTC));
        DayStatusStore meta = meta(hbase, clock, "catchup");
        reconcile(meta, today.minusDays(4)); // the last night before the gap reconciled its yesterday
        reconcile(meta, today.minusDays(3).minusDays(2)); // and an older day, outside the window later
        clock.set(today.atTime(10, 0).toInstant(ZoneOffset.UTC)); // three nights missed, started at 10:00
        List<LocalDate> asked = new CopyOnWriteArrayList<>();
        ReconcileScheduler s = new ReconcileScheduler(CONFIG, clock, meta::days, day -> {
            asked.add(day);
            return reconcile(meta, day);
        });

        try (s) {
            s.start();
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos(); // a ceiling on the wait, not a timing
            while (!s.daysFor(clock.instant()).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }

        assertEquals(List.of(today.minusDays(3), today.minusDays(2), today.minusDays(1)), asked,
                "the unreconciled days of the window, oldest first; the reconciled one is settled");
        assertEquals(List.of(), s.daysFor(clock.instant()), "nothing is due any more");
        assertEquals(0, s.failures());
    }

    @Test
    void a_day_that_closes_after_its_nightly_time_is_not_caught_up_early(MiniHBase hbase) throws Exception {
        LocalDate today = LocalDate.of(2026, 10, 30);
        MutableClock clock = new MutableClock(today.atTime(2, 0).toInstant(ZoneOffset.UTC));
        DayStatusStore meta = meta(hbase, clock, "early");
        ReconcileScheduler s = new ReconcileScheduler(CONFIG, clock, meta::days, day -> reconcile(meta, day));
        assertEquals(List.of(), s.catchUpDays(clock.instant()), "a fresh stack (no day ever closed) does not catch up");
        reconcile(meta, today.minusDays(5)); // the stack ran before: the day before the window was reconciled
        // At 02:00, yesterday's nightly run (03:00) is still ahead: it keeps counting live until then.
        assertEquals(List.of(today.minusDays(4), today.minusDays(3), today.minusDays(2)), s.catchUpDays(clock.instant()));
        assertEquals(List.of(today.minusDays(4), today.minusDays(3), today.minusDays(2), today.minusDays(1)),
                s.daysFor(clock.instant()));
    }

    @Test
    void a_reconciled_day_that_got_late_events_is_reconciled_again_the_next_night_and_only_then(MiniHBase hbase) throws Exception {
        LocalDate today = LocalDate.of(2026, 9, 30);
        MutableClock clock = new MutableClock(today.atTime(3, 0).toInstant(ZoneOffset.UTC));
        DayStatusStore meta = meta(hbase, clock, "rerun");
        List<LocalDate> asked = new CopyOnWriteArrayList<>();
        ReconcileScheduler s = new ReconcileScheduler(CONFIG, clock, meta::days, day -> {
            asked.add(day);
            return reconcile(meta, day);
        });
        s.runOnce();
        assertEquals(4, asked.size(), "the first night reconciles the whole window");

        clock.advance(Duration.ofDays(1));
        asked.clear();
        s.runOnce();
        assertEquals(List.of(today), asked, "the next night: only the new yesterday; the others are settled");

        LocalDate lateDay = today.minusDays(1);
        Thread.sleep(2);
        meta.markLate(lateDay); // an aggregator stored an event of the closed day
        assertTrue(meta.day(lateDay).lateSinceClose());
        clock.advance(Duration.ofDays(1));
        asked.clear();
        s.runOnce();
        assertEquals(List.of(lateDay, today.plusDays(1)), asked, "the day with late events again, unasked, oldest first");
        assertTrue(meta.day(lateDay).settled(), "its new close is after the late mark");

        clock.advance(Duration.ofDays(1));
        asked.clear();
        s.runOnce();
        assertEquals(List.of(today.plusDays(2)), asked);
    }
}
