package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.meta.MetaStore;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(HBaseExtension.class)
class DayCloseTest {

    @Test
    void a_closing_day_gets_no_live_increments_but_its_events_are_stored_and_counted_late(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        MetaStore meta = new MetaStore(hbase.connection(), w.layout(), w.clock);
        LocalDate today = LocalDate.ofInstant(w.now, ZoneOffset.UTC);
        LocalDate closing = today.minusDays(1);
        Instant closingNoon = closing.atTime(12, 0).toInstant(ZoneOffset.UTC);
        Traffic traffic = new Traffic(11);
        Recount recount = new Recount();
        String id;
        try (Aggregator agg = w.start(Map.of())) {
            id = agg.config().aggregatorId();
            // Counted live before the close.
            List<Beacon> before = events(traffic, closingNoon, 30);
            Traffic.send(agg, before, 10, 2);
            recount.phase(before);
            agg.flushNow();
            // Buffered, not yet flushed, when the day closes: must be dropped.
            List<Beacon> buffered = events(traffic, closingNoon, 20);
            Traffic.send(agg, buffered, 10, 2);
            Recount ignored = new Recount();
            ignored.phase(buffered);

            meta.markClosing(closing);
            awaitAcknowledged(meta, id, closing);

            List<Beacon> lateOnes = events(traffic, closingNoon, 25);
            List<Beacon> todays = events(traffic, w.now, 25);
            Traffic.Answers a = Traffic.send(agg, concat(lateOnes, todays), 10, 2);
            assertEquals(50, a.accepted(), "late events are still accepted");
            recount.phase(todays);
            agg.flushNow();

            assertEquals(25, agg.stats().late.get());
            assertTrue(agg.stats().cellsDroppedClosedDay.get() > 0, "buffered cells of the closed day were dropped");
        }
        assertEquals(recount.expected, w.counters(), "the closed day holds only what was flushed before it closed");
        assertEquals(30 + 20 + 50, w.rawRows().size(), "every event is stored raw");
    }

    /** Bounded poll: the aggregator acknowledges within a few poll intervals (100 ms here). */
    private static void awaitAcknowledged(MetaStore meta, String id, LocalDate day) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (meta.aggregators().stream().anyMatch(a -> a.id().equals(id) && a.closedDays().contains(day))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("aggregator " + id + " never acknowledged the close of " + day);
    }

    private static List<Beacon> events(Traffic traffic, Instant around, int n) {
        List<Beacon> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(traffic.impression(around, Duration.ofHours(10)));
        }
        return out;
    }

    private static List<Beacon> concat(List<Beacon> a, List<Beacon> b) {
        List<Beacon> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
