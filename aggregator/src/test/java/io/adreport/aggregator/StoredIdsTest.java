package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dedup filter ({@code StoredIds}) skips existence reads without ever letting a stored event
 * count twice: a restarted aggregator loads what an earlier one stored, and its replays stay
 * duplicates, its clicks find their impressions.
 */
@ExtendWith(HBaseExtension.class)
class StoredIdsTest {

    @Test
    void a_restarted_aggregator_skips_reads_for_new_events_and_still_finds_every_stored_one(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        Traffic traffic = new Traffic(77);
        Recount recount = new Recount();
        List<Beacon> before = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            before.add(traffic.impression(w.now, Duration.ofHours(30))); // today and yesterday (UTC)
        }
        try (Aggregator first = w.start(Map.of())) {
            Traffic.send(first, before, 50, 4);
            recount.phase(before);
            first.flushNow();
        }

        long today = LocalDate.ofInstant(w.now, ZoneOffset.UTC).toEpochDay();
        try (Aggregator second = w.start(Map.of())) {
            // The first events of each day start the loading of its filter; until it is loaded, reads answer.
            List<Beacon> opening = new ArrayList<>();
            opening.add(traffic.impression(w.now, Duration.ofMinutes(10)));
            opening.add(traffic.impression(w.now.minus(Duration.ofDays(1)), Duration.ofMinutes(10)));
            Traffic.send(second, opening, 2, 1);
            recount.phase(opening);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!(second.storedIds().trusted(today) && second.storedIds().trusted(today - 1)) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(second.storedIds().trusted(today) && second.storedIds().trusted(today - 1), "both days loaded");

            List<Beacon> fresh = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                fresh.add(traffic.impression(w.now, Duration.ofHours(30)));
            }
            List<Beacon> mixed = new ArrayList<>(fresh);
            mixed.addAll(before); // every event stored by the first aggregator, again
            for (int i = 0; i < before.size(); i += 4) {
                mixed.add(traffic.clickOf(before.get(i), w.now)); // clicks of impressions the first one stored
            }
            traffic.shuffle(mixed);
            long readsBefore = second.stats().existenceReads.get();
            long skippedBefore = second.stats().existenceSkipped.get();
            Traffic.Answers a = Traffic.send(second, mixed, 50, 4);
            long expectedFresh = recount.phase(mixed);
            second.flushNow();

            assertEquals(expectedFresh, a.accepted(), "accepted");
            assertEquals(before.size(), a.duplicates(), "every event of the first aggregator is a duplicate");
            long skipped = second.stats().existenceSkipped.get() - skippedBefore;
            long reads = second.stats().existenceReads.get() - readsBefore;
            // New impressions and clicks are certainly absent from the table: their reads are skipped (bar ~1% false positives).
            assertTrue(skipped >= (fresh.size() + before.size() / 4) * 0.9, "skipped " + skipped + ", read " + reads);
            // Stored ones must be read to be recognized: the replays and the clicks' impressions.
            assertTrue(reads >= before.size() + before.size() / 4, "read " + reads);
        }
        assertEquals(recount.expected, w.counters(), "counters equal the recount: no replay counted, every click attributed");
    }

    @Test
    void with_the_filter_off_every_check_is_a_read(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        Traffic traffic = new Traffic(78);
        List<Beacon> events = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            events.add(traffic.impression(w.now, Duration.ofHours(2)));
        }
        try (Aggregator agg = w.start(Map.of("raw.dedup.filter.days", "0"))) {
            Traffic.Answers a = Traffic.send(agg, traffic.withReplays(events, 0.2), 20, 2);
            assertEquals(100, a.accepted());
            assertEquals(0, agg.stats().existenceSkipped.get());
            // Every stored event was read first (a replay in the same group commit waits for the first instead of reading).
            assertTrue(agg.stats().existenceReads.get() >= a.accepted(), "reads " + agg.stats().existenceReads.get());
        }
    }
}
