package io.adreport.launcher.demo;

import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.launcher.demo.FakeIngest.Line;
import io.adreport.launcher.demo.FakeIngest.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BackfillTest {
    private static final LocalDate TODAY = LocalDate.parse("2026-03-10");

    @Test
    void backfill_covers_the_two_previous_utc_days_and_today_up_to_now_hour_by_hour() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        DemoOptions options = DemoOptions.defaults().withRate(0.05); // 4,320 beacons a day
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
            demo.backfill();
            demo.tick();
            demo.tick(); // the clock has not moved: no live traffic

            Map<LocalDate, Long> byDay = ingest.lines().stream().filter(Line::valid)
                    .collect(Collectors.groupingBy(l -> day(l.event().ts()), TreeMap::new, Collectors.counting()));
            for (LocalDate day : new LocalDate[] {TODAY.minusDays(2), TODAY.minusDays(1)}) {
                long n = byDay.getOrDefault(day, 0L);
                assertTrue(n > 0.9 * 4320 && n < 1.05 * 4320, day + ": " + n + " beacons");
                int[] perHour = impressionsPerHour(ingest, day);
                for (int h = 0; h < 24; h++) {
                    assertTrue(perHour[h] > 0, day + " hour " + h + " has no impressions");
                }
                assertTrue(perHour[20] > 2 * perHour[8], "the back-fill follows the daily curve");
            }
            int[] today = impressionsPerHour(ingest, TODAY);
            for (int h = 0; h < 24; h++) {
                assertEquals(h < 12, today[h] > 0, "today's hour " + h + ": " + today[h] + " impressions");
            }
            assertTrue(ingest.lines().stream().filter(Line::valid).allMatch(l -> !l.event().ts().isAfter(clock.instant())),
                    "nothing from the future");
            long sent = demo.stats().sent().sum();
            assertEquals(ingest.lines().size(), sent);
            assertEquals(sent, demo.stats().backfilled().sum());
            assertEquals(demo.stats().malformed().sum(), demo.stats().rejected().sum());
            assertEquals(sent, demo.stats().accepted().sum() + demo.stats().duplicates().sum() + demo.stats().rejected().sum());
            assertEquals(0, demo.stats().errors().sum());
            assertTrue(demo.awaitBackfill(Duration.ZERO));
        }
    }

    /**
     * Issue 17: the chart was a flat line (2,800 back-filled beacons a day) and a spike (the live
     * traffic, 60 beacons/s) at the current hour, with nothing before it today. Now every hour,
     * back-filled or live, holds the configured rate times the curve: divided by the curve, the
     * hourly impression counts of two and a half days are level, and the current hour's back-filled
     * half and live half match.
     */
    @Test
    void backfill_and_live_traffic_make_one_daily_curve_with_no_step_at_now() throws Exception {
        Instant start = Instant.parse("2026-03-10T13:30:00Z");
        Instant end = Instant.parse("2026-03-10T15:00:00Z");
        MutableClock clock = MutableClock.at(start.toString());
        double rate = 0.1; // 360 beacons an hour on average
        DemoOptions options = DemoOptions.defaults().withRate(rate);
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
            demo.backfill();
            long backfilled = demo.stats().backfilled().sum();
            while (clock.instant().isBefore(end)) {
                clock.advance(Duration.ofSeconds(5));
                demo.tick();
            }
            assertEquals(backfilled, demo.stats().backfilled().sum());
            assertTrue(demo.stats().sent().sum() > backfilled + 400, "live traffic flowed: " + demo.stats().snapshot());

            // Impressions per hour over the curve's expectation for that hour, from the day before yesterday to now.
            Instant first = TODAY.minusDays(2).atStartOfDay().toInstant(ZoneOffset.UTC);
            List<String> table = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            for (Instant h = first; h.isBefore(end); h = h.plus(Duration.ofHours(1))) {
                long n = impressions(ingest, h, h.plus(Duration.ofHours(1)));
                double ratio = n / (rate * TrafficCurve.integral(h, h.plus(Duration.ofHours(1))));
                ratios.add(ratio);
                table.add(h.toString().substring(5, 13) + " " + n + " " + String.format("%.2f", ratio));
            }
            double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double median = sorted[sorted.length / 2];
            System.out.println("impressions per hour / expected: median " + median + "\n" + String.join("\n", table));
            assertEquals(0.94, median, 0.04, "about 94% of beacons are first impressions (the rest: duplicates, "
                    + "malformed, clicks, conversions)");
            for (int i = 0; i < ratios.size(); i++) {
                double r = ratios.get(i) / median;
                assertTrue(r > 0.8 && r < 1.2, "hour " + table.get(i) + " is off the curve (" + r + " of the median)");
            }

            // The current hour: back-filled up to 13:30, live after. Same scale on both sides of "now".
            Instant hour = start.truncatedTo(ChronoUnit.HOURS);
            Instant hourEnd = hour.plus(Duration.ofHours(1));
            double before = impressions(ingest, hour, start) / TrafficCurve.integral(hour, start);
            double after = impressions(ingest, start, hourEnd) / TrafficCurve.integral(start, hourEnd);
            assertTrue(after / before > 0.8 && after / before < 1.25, "back-filled " + before + " vs live " + after + " per curve-second");

            // Today's back-fill held beacons due after it ended (late impressions, clicks): they went out with the live ticks.
            long carriedOver = ingest.lines().stream()
                    .filter(l -> l.receivedAt().isAfter(start) && l.text().contains("\"id\":\"b20260310-"))
                    .count();
            assertTrue(carriedOver > 0, "beacons of the back-fill delivered after it");
            assertEquals(0, demo.stats().errors().sum());
        }
    }

    @Test
    void a_rate_too_high_for_the_limit_scales_the_backfill_down_but_keeps_its_shape() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        DemoOptions options = DemoOptions.defaults().withRate(50).withBackfill(2, 20_000);
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
            demo.backfill();
            long n = demo.stats().backfilled().sum();
            // A late impression takes a slot when it is made and another when it goes out: ~1% fewer lines than slots.
            assertTrue(n <= 20_000 && n > 19_500, n + " beacons back-filled, about the limit of 20,000");
            double perSecond = Backfill.rate(options, clock.instant());
            for (LocalDate day : new LocalDate[] {TODAY.minusDays(2), TODAY.minusDays(1)}) {
                int[] perHour = impressionsPerHour(ingest, day);
                Instant midnight = day.atStartOfDay().toInstant(ZoneOffset.UTC);
                for (int h = 0; h < 24; h++) {
                    Instant from = midnight.plus(Duration.ofHours(h));
                    double expected = 0.94 * perSecond * TrafficCurve.integral(from, from.plus(Duration.ofHours(1)));
                    assertTrue(Math.abs(perHour[h] - expected) < 0.2 * expected, day + " hour " + h + ": " + perHour[h]
                            + " impressions, expected about " + expected + " " + Arrays.toString(perHour));
                }
            }
        }
    }

    @Test
    void a_restart_resends_the_same_backfill_which_the_ingest_counts_as_duplicates() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock)) {
            DemoOptions options = DemoOptions.defaults().withRate(0.02);
            try (DemoTraffic first = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
                first.backfill();
                assertTrue(first.stats().accepted().sum() > 3000);
            }
            int firstRequests = ingest.requests();
            List<Line> firstLines = ingest.lines();
            clock.advance(Duration.ofMinutes(3));
            try (DemoTraffic second = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
                second.backfill();
                List<Line> again = ingest.lines().stream().filter(l -> l.request() > firstRequests).toList();
                Set<String> sentAgain = again.stream().map(Line::text).collect(Collectors.toSet());
                assertTrue(firstLines.stream().allMatch(l -> sentAgain.contains(l.text())), "every beacon of the first run again");
                Set<String> sentFirst = firstLines.stream().map(Line::text).collect(Collectors.toSet());
                assertTrue(again.stream().filter(l -> sentFirst.contains(l.text())).noneMatch(l -> l.outcome() == Outcome.ACCEPTED),
                        "none of them counted twice");
                long newLines = again.stream().filter(l -> !sentFirst.contains(l.text())).count();
                DemoStats.Snapshot s = second.stats().snapshot();
                assertTrue(s.accepted() <= newLines && newLines < 20, "only the three minutes since: " + newLines + " new; " + s);
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
    void no_previous_days_back_fills_today_only() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), DemoOptions.defaults().withRate(0.05).withBackfill(0, 3000), clock, d -> { })) {
            demo.backfill();
            assertTrue(ingest.lines().size() > 1000);
            assertTrue(ingest.lines().stream().filter(l -> l.valid() && l.type().equals("impression"))
                    .allMatch(l -> day(l.event().ts()).equals(TODAY)));
        }
    }

    @Test
    void a_zero_limit_means_no_backfill() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), DemoOptions.defaults().withBackfill(2, 0), clock, d -> { })) {
            demo.backfill();
            assertEquals(0, ingest.requests());
            assertTrue(demo.awaitBackfill(Duration.ZERO));
        }
    }

    private static long impressions(FakeIngest ingest, Instant from, Instant to) {
        return ingest.lines().stream()
                .filter(l -> l.outcome() == Outcome.ACCEPTED && l.type().equals("impression"))
                .filter(l -> !l.event().ts().isBefore(from) && l.event().ts().isBefore(to))
                .count();
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
