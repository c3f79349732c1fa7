package io.adreport.launcher.demo;

import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.launcher.demo.FakeIngest.Line;
import io.adreport.launcher.demo.FakeIngest.Outcome;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BackfillTest {
    private static final LocalDate TODAY = LocalDate.parse("2026-03-10");

    @Test
    void backfill_covers_the_two_previous_utc_days_hour_by_hour() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), DemoOptions.defaults(), clock, d -> { })) {
            demo.backfill();
            demo.tick();
            demo.tick(); // the clock has not moved: no live traffic

            Map<LocalDate, Long> byDay = ingest.lines().stream().filter(Line::valid)
                    .collect(Collectors.groupingBy(l -> day(l.event().ts()), TreeMap::new, Collectors.counting()));
            for (LocalDate day : new LocalDate[] {TODAY.minusDays(2), TODAY.minusDays(1)}) {
                long n = byDay.getOrDefault(day, 0L);
                assertTrue(n > 0.9 * 3000 && n < 1.05 * 3000, day + ": " + n + " beacons");
                int[] perHour = impressionsPerHour(ingest, day);
                for (int h = 0; h < 24; h++) {
                    assertTrue(perHour[h] > 0, day + " hour " + h + " has no impressions");
                }
                assertTrue(perHour[20] > 2 * perHour[8], "the back-fill follows the daily curve");
            }
            assertFalse(ingest.lines().stream().filter(Line::valid)
                    .anyMatch(l -> l.type().equals("impression") && !day(l.event().ts()).isBefore(TODAY)),
                    "back-filled impressions belong to the previous days");
            assertTrue(ingest.lines().stream().filter(Line::valid).allMatch(l -> !l.event().ts().isAfter(clock.instant())),
                    "nothing from the future");
            long sent = demo.stats().sent().sum();
            assertEquals(ingest.lines().size(), sent);
            assertEquals(sent, demo.stats().backfilled().sum());
            assertEquals(demo.stats().malformed().sum(), demo.stats().rejected().sum());
            assertEquals(sent, demo.stats().accepted().sum() + demo.stats().duplicates().sum() + demo.stats().rejected().sum());
            assertEquals(0, demo.stats().errors().sum());
            assertTrue(demo.awaitBackfill(java.time.Duration.ZERO));
        }
    }

    @Test
    void a_restart_resends_the_same_backfill_which_the_ingest_counts_as_duplicates() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock)) {
            DemoOptions options = DemoOptions.defaults().withBackfill(2, 1000);
            try (DemoTraffic first = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
                first.backfill();
                assertTrue(first.stats().accepted().sum() > 1500);
            }
            clock.advance(java.time.Duration.ofMinutes(3));
            try (DemoTraffic second = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
                second.backfill();
                DemoStats.Snapshot s = second.stats().snapshot();
                assertEquals(0, s.accepted(), s.toString());
                assertEquals(s.sent() - s.malformed(), s.duplicates(), s.toString());
            }
        }
    }

    @Test
    void just_after_midnight_nothing_is_sent_from_the_future() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T00:04:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), DemoOptions.defaults().withBackfill(1, 5000), clock, d -> { })) {
            demo.backfill();
            for (Line l : ingest.lines()) {
                if (l.valid()) {
                    assertFalse(l.event().ts().isAfter(clock.instant()), l.text());
                } else {
                    assertFalse(l.error().contains("future"), l.error());
                }
            }
            assertEquals(demo.stats().malformed().sum(), ingest.lines().stream().filter(l -> l.outcome() == Outcome.REJECTED).count());
        }
    }

    @Test
    void no_backfill_days_means_no_backfill() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), DemoOptions.defaults().withBackfill(0, 3000), clock, d -> { })) {
            demo.backfill();
            assertEquals(0, ingest.requests());
        }
    }

    private static int[] impressionsPerHour(FakeIngest ingest, LocalDate day) {
        int[] perHour = new int[24];
        for (Line l : ingest.lines()) {
            if (l.valid() && l.type().equals("impression") && day(l.event().ts()).equals(day)) {
                perHour[l.event().ts().atZone(ZoneOffset.UTC).getHour()]++;
            }
        }
        return perHour;
    }

    private static LocalDate day(Instant ts) {
        return LocalDate.ofInstant(ts, ZoneOffset.UTC);
    }
}
