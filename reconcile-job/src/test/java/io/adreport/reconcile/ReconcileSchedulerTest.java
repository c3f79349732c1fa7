package io.adreport.reconcile;

import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.report.DriftReport;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReconcileSchedulerTest {
    private static final ReconcileConfig CONFIG = ReconcileConfig.of(Map.of("reconcile.time", "03:00", "reconcile.lookback.days", "3"));

    private static DriftReport report(LocalDate day) {
        return new DriftReport(day, DriftReport.RECONCILED, Instant.EPOCH, Instant.EPOCH, 0, false,
                new DriftReport.Totals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), Map.of(), List.of());
    }

    @Test
    void the_next_run_is_the_next_configured_utc_time() {
        ReconcileScheduler s = new ReconcileScheduler(CONFIG, new MutableClock(Instant.EPOCH), ReconcileSchedulerTest::report);
        assertEquals(Instant.parse("2026-11-29T03:00:00Z"), s.nextRun(Instant.parse("2026-11-29T02:59:59Z")));
        assertEquals(Instant.parse("2026-11-30T03:00:00Z"), s.nextRun(Instant.parse("2026-11-29T03:00:00Z")));
        assertEquals(Instant.parse("2026-11-30T03:00:00Z"), s.nextRun(Instant.parse("2026-11-29T18:00:00Z")));
    }

    @Test
    void a_run_reconciles_yesterday_and_the_look_back_days_oldest_first_and_survives_a_failed_day() {
        List<LocalDate> asked = new CopyOnWriteArrayList<>();
        ReconcileScheduler s = new ReconcileScheduler(CONFIG, new MutableClock(Instant.parse("2026-11-29T03:00:00Z")), day -> {
            asked.add(day);
            if (day.equals(LocalDate.of(2026, 11, 26))) {
                throw new IllegalStateException("HBase unreachable");
            }
            return report(day);
        });
        s.runOnce();
        assertEquals(List.of(LocalDate.of(2026, 11, 25), LocalDate.of(2026, 11, 26), LocalDate.of(2026, 11, 27),
                LocalDate.of(2026, 11, 28)), asked);
        assertEquals(4, s.runs());
        assertEquals(1, s.failures());
    }

    @Test
    void started_it_fires_at_the_configured_time_of_the_injected_clock() throws Exception {
        CountDownLatch fired = new CountDownLatch(4);
        List<LocalDate> asked = new CopyOnWriteArrayList<>();
        MutableClock clock = new MutableClock(Instant.parse("2026-11-29T02:59:59.800Z"));
        try (ReconcileScheduler s = new ReconcileScheduler(CONFIG, clock, day -> {
            asked.add(day);
            fired.countDown();
            return report(day);
        })) {
            s.start();
            assertTrue(fired.await(10, TimeUnit.SECONDS), "the run fired");
        }
        // No day known closed: no catch-up at start (a fresh stack), the whole window at 03:00.
        assertEquals(List.of(LocalDate.of(2026, 11, 25), LocalDate.of(2026, 11, 26), LocalDate.of(2026, 11, 27),
                LocalDate.of(2026, 11, 28)), asked);
    }
}
