package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.time.UtcDay;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The aggregator records a day's view gap (a device view of an event of the day may be missing)
 * exactly when the nightly pass needs it to write that day's views again: a view write that
 * failed, and a restart after a run that never retired. A clean stop and a run without failures
 * record none.
 */
@ExtendWith(HBaseExtension.class)
class ViewGapTest {
    private static final Map<String, String> DIMS = Map.of("advertiser", "adv1", "campaign", "c1", "creative", "cr1",
            "publisher", "pub1", "zone", "z1", "country", "DE", "deviceType", "mobile", "device", "dev-42");

    @Test
    void a_failed_view_write_records_its_days_gap_and_a_clean_run_records_none(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        TableName profiles = w.layout().profilesTable();
        FaultyTables tables = new FaultyTables(TableSource.of(hbase.connection(), Duration.ofSeconds(30)),
                w.layout().rawTable());
        DayStatusStore days = new DayStatusStore(hbase.connection(), w.layout(), w.clock);
        Aggregator agg = w.start(Map.of("aggregator.id", "gap-writes"), tables);
        try {
            Beacon ok = Beacon.impression("vg-ok", w.now.minus(Duration.ofHours(50)), DIMS, 100);
            assertEquals(200, TestStack.post(agg, ok.json()).statusCode());
            tables.counterBatch = (real, actions, results) -> {
                if (real.getName().equals(profiles)) {
                    throw new IOException("injected: the profiles table refuses the view write");
                }
                real.batch(actions, results);
            };
            Beacon lost = Beacon.impression("vg-lost", w.now.minus(Duration.ofHours(1)), DIMS, 100);
            assertTrue(UtcDay.of(ok.ts()).date().isBefore(UtcDay.of(lost.ts()).date()), "two different days");
            HttpResponse<String> refused = TestStack.post(agg, lost.json());
            assertEquals(503, refused.statusCode(), refused.body());
            tables.counterBatch = null;
            assertTrue(w.rawRows().containsKey("impression/vg-lost"), "the raw row is stored although its view is not");
            assertNotNull(awaitGap(days, UtcDay.of(lost.ts()).date()), "the failed view's day has a gap");
            assertNull(days.viewGap(UtcDay.of(ok.ts()).date()), "the day whose views were all written has none");
        } finally {
            agg.close();
        }
        // a clean stop retires the instance: its next start records no gap
        LocalDate today = UtcDay.of(w.now).date();
        assertTrue(days.clearViewGap(today, days.viewGap(today)));
        Aggregator again = w.start(Map.of("aggregator.id", "gap-writes"), tables);
        again.close();
        assertNull(days.viewGap(today), "a restart after a clean stop records no gap");
    }

    @Test
    void a_restart_after_a_run_that_never_retired_records_gaps_on_every_day_it_may_have_been_writing(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        DayStatusStore days = new DayStatusStore(hbase.connection(), w.layout(), w.clock);
        LocalDate today = UtcDay.of(w.now).date();
        Aggregator crashed = w.start(Map.of("aggregator.id", "gap-crash", "dayclose.window.days", "3"));
        crashed.abort(); // as a crash: no retirement
        assertNull(days.viewGap(today), "a crash itself writes nothing");
        Aggregator restarted = w.start(Map.of("aggregator.id", "gap-crash", "dayclose.window.days", "3"));
        try {
            // the watch window (3 days) back from the last heartbeat, up to tomorrow: events of those days may have been in flight
            for (LocalDate d = today.minusDays(3); !d.isAfter(today.plusDays(1)); d = d.plusDays(1)) {
                assertNotNull(awaitGap(days, d), "view gap of " + d);
            }
            assertNull(days.viewGap(today.minusDays(4)), "no event of a day before the window was accepted");
            assertNull(days.viewGap(today.plusDays(2)));
        } finally {
            restarted.close();
        }
    }

    /** The day's gap once the watcher's poll (every 100 ms here) has written it; a minute at most. */
    private static Instant awaitGap(DayStatusStore days, LocalDate day) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            Instant gap = days.viewGap(day);
            if (gap != null) {
                return gap;
            }
            Thread.sleep(50);
        }
        return null;
    }
}
