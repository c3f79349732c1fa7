package io.adreport.launcher.demo;

import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.launcher.demo.FakeIngest.Line;
import io.adreport.launcher.demo.FakeIngest.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Twenty minutes of live traffic at 40 beacons/s, driven by a clock the test moves two seconds per
 * tick, posted to a real HTTP server that validates and deduplicates what it receives; then a jump
 * of four hours so that every held (late) beacon has been delivered. The assertions recompute
 * everything from the received lines.
 */
class LiveTrafficTest {
    private static final double RATE = 40;
    private static final int SECONDS = 1200;
    private static final Duration STEP = Duration.ofSeconds(2);
    private static final double DUPLICATES = 0.05;
    private static final double LATE = 0.01;
    private static final double MALFORMED = 0.01;

    private static FakeIngest ingest;
    private static DemoTraffic demo;
    private static MutableClock clock;
    private static List<Line> run;      // what arrived during the twenty minutes
    private static List<Line> all;      // plus the catch-up tick after the jump
    private static Instant jumpedTo;

    @BeforeAll
    static void simulate_twenty_minutes() throws Exception {
        clock = MutableClock.at("2026-03-10T16:00:00Z");
        ingest = FakeIngest.start(clock);
        DemoOptions options = DemoOptions.defaults().withRate(RATE).withBackfill(0, 0).withShares(DUPLICATES, LATE, MALFORMED);
        demo = DemoTraffic.create(ingest.url(), options, clock, d -> { });
        demo.backfill();
        demo.tick();
        for (int s = 0; s < SECONDS; s += STEP.toSeconds()) {
            clock.advance(STEP);
            demo.tick();
        }
        run = ingest.lines();
        clock.advance(Duration.ofHours(4));
        jumpedTo = clock.instant();
        demo.tick();
        all = ingest.lines();
    }

    @AfterAll
    static void stop() {
        demo.close();
        ingest.close();
        // Static fields outlive the class's tests; the test JVM runs many more (tens of MB of lines).
        ingest = null;
        run = null;
        all = null;
    }

    @Test
    void the_rate_is_roughly_honoured() {
        double expected = RATE * SECONDS; // the daily curve keeps any stretch within 0.5x .. 1.5x of this
        assertTrue(run.size() > 0.45 * expected && run.size() < 1.55 * expected,
                run.size() + " beacons in " + SECONDS + " s at " + RATE + "/s");
        assertEquals(all.size(), demo.stats().sent().sum());
    }

    @Test
    void a_stalled_clock_is_followed_by_a_short_burst_not_a_flood() {
        Instant fiveSecondsBefore = jumpedTo.minus(DemoTraffic.MAX_CATCH_UP);
        List<Line> catchUp = all.subList(run.size(), all.size());
        long fresh = catchUp.stream()
                .filter(l -> l.event() != null && l.event().ts().isAfter(fiveSecondsBefore))
                .count();
        // Four hours owed would be over a million beacons; at most five seconds' worth are made up,
        // and the held clicks and late impressions that fell due count against that budget.
        assertTrue(fresh <= 1.5 * RATE * DemoTraffic.MAX_CATCH_UP.toSeconds(), "burst of " + fresh);
        assertTrue(catchUp.size() < 10_000, "catch-up of " + catchUp.size());
    }

    @Test
    void click_through_rates_are_realistic_and_differ_by_creative() {
        Map<String, String> creativeOf = new HashMap<>();
        Map<String, int[]> byCreative = new TreeMap<>(); // impressions, clicks
        for (Line l : accepted(all)) {
            if (l.type().equals("impression")) {
                creativeOf.put(l.event().id(), l.event().dimensions().get("creative"));
                byCreative.computeIfAbsent(l.event().dimensions().get("creative"), k -> new int[2])[0]++;
            }
        }
        int impressions = 0;
        int clicks = 0;
        for (Line l : accepted(all)) {
            if (l.type().equals("click")) {
                byCreative.get(creativeOf.get(l.event().joinRef()))[1]++;
                clicks++;
            }
        }
        for (int[] c : byCreative.values()) {
            impressions += c[0];
        }
        double overall = (double) clicks / impressions;
        assertTrue(overall >= 0.001 && overall <= 0.02, "overall CTR " + overall);
        double lowest = 1;
        double highest = 0;
        for (Map.Entry<String, int[]> e : byCreative.entrySet()) {
            int[] c = e.getValue();
            if (c[0] >= 3000) {
                double ctr = (double) c[1] / c[0];
                assertTrue(ctr <= 0.03, e.getKey() + " CTR " + ctr);
                lowest = Math.min(lowest, ctr);
                highest = Math.max(highest, ctr);
            }
        }
        assertTrue(highest > 2 * lowest, "creative CTRs " + lowest + " .. " + highest);
    }

    @Test
    void about_five_percent_of_beacons_are_identical_resends() {
        Set<String> earlier = new HashSet<>();
        int resends = 0;
        for (Line l : run) {
            if (l.outcome() == Outcome.DUPLICATE) {
                assertTrue(earlier.contains(l.text()), "a duplicate must repeat an earlier line exactly: " + l.text());
                resends++;
            }
            earlier.add(l.text());
        }
        double share = (double) resends / run.size();
        assertTrue(share > 0.035 && share < 0.065, "duplicate share " + share);
        assertEquals(demo.stats().duplicates().sum(), all.stream().filter(l -> l.outcome() == Outcome.DUPLICATE).count());
    }

    @Test
    void malformed_beacons_are_the_intended_share_and_exactly_the_rejected_ones() {
        List<Line> rejected = all.stream().filter(l -> l.outcome() == Outcome.REJECTED).toList();
        assertEquals(demo.stats().malformed().sum(), rejected.size());
        assertEquals(demo.stats().rejected().sum(), rejected.size());
        double share = (double) rejected.size() / all.size();
        assertTrue(share > 0.005 && share < 0.015, "malformed share " + share);
        Set<String> fields = new HashSet<>();
        rejected.forEach(l -> fields.add(l.error().substring(0, l.error().indexOf(':'))));
        assertTrue(fields.containsAll(Set.of("type", "id", "ts", "country", "costMicros")), fields.toString());
    }

    @Test
    void clicks_follow_their_impression_in_a_later_request_unless_the_impression_beacon_was_late() {
        Map<String, Line> impressions = new HashMap<>();
        for (Line l : accepted(all)) {
            if (l.type().equals("impression")) {
                impressions.put(l.event().id(), l);
            }
        }
        Set<String> arrived = new HashSet<>();
        int joins = 0;
        int beforeTheirImpression = 0;
        for (Line l : all) {
            if (!l.valid()) {
                continue;
            }
            if (l.type().equals("impression")) {
                arrived.add(l.event().id());
                continue;
            }
            joins++;
            Line impression = impressions.get(l.event().joinRef());
            assertNotNull(impression, "every join names an impression that is eventually sent: " + l.text());
            assertFalse(l.event().ts().isBefore(impression.event().ts()), "a join happens after its impression: " + l.text());
            if (arrived.contains(l.event().joinRef())) {
                assertTrue(impression.request() < l.request(), "a join travels in a later request than its impression");
            } else {
                beforeTheirImpression++;
                Duration lateness = Duration.between(impression.event().ts(), impression.receivedAt());
                assertTrue(lateness.compareTo(BeaconGenerator.MIN_LATENESS) >= 0,
                        "only a late impression arrives after its click, this one was " + lateness + " late");
            }
        }
        assertTrue(joins > 200, "joins: " + joins);
        assertTrue(beforeTheirImpression > 0 && beforeTheirImpression < 0.1 * joins,
                beforeTheirImpression + " of " + joins + " joins arrived before their (late) impression");
    }

    @Test
    void conversions_follow_a_click_on_the_same_impression() {
        Map<String, Instant> clicked = new HashMap<>();
        int conversions = 0;
        for (Line l : accepted(all)) {
            if (l.type().equals("click")) {
                clicked.put(l.event().joinRef(), l.event().ts());
            } else if (l.type().equals("conversion")) {
                conversions++;
                Instant click = clicked.get(l.event().joinRef());
                assertNotNull(click, "a conversion comes after a click: " + l.text());
                Duration delay = Duration.between(click, l.event().ts());
                assertTrue(delay.compareTo(Duration.ofSeconds(10)) >= 0 && delay.compareTo(Duration.ofMinutes(31)) <= 0,
                        "conversion " + delay + " after its click");
                assertTrue(l.event().number("valueMicros") > 0);
            }
        }
        assertTrue(conversions > 0 && conversions < clicked.size(), conversions + " conversions for " + clicked.size() + " clicks");
    }

    @Test
    void about_one_percent_of_impressions_arrive_minutes_to_hours_late() {
        List<Line> impressions = accepted(all).stream().filter(l -> l.type().equals("impression")).toList();
        long late = 0;
        for (Line l : impressions) {
            Duration lateness = Duration.between(l.event().ts(), l.receivedAt());
            // On time means within the tick that made it.
            if (lateness.compareTo(STEP.plusSeconds(1)) > 0) {
                late++;
                assertTrue(lateness.compareTo(Duration.ofMinutes(5)) >= 0, "late by " + lateness);
            }
        }
        double share = (double) late / impressions.size();
        assertTrue(share > 0.005 && share < 0.02, "late share " + share);
    }

    @Test
    void impressions_carry_every_field_of_the_contract_with_skewed_popularity() {
        Map<String, Integer> byAdvertiser = new HashMap<>();
        Map<String, Integer> byPublisher = new HashMap<>();
        Set<String> tsForms = new HashSet<>();
        for (Line l : accepted(run)) {
            tsForms.add(l.json().get("ts").isNumber() ? "epoch-ms" : l.json().get("ts").asText().endsWith("Z") ? "utc" : "offset");
            if (!l.type().equals("impression")) {
                assertTrue(l.json().hasNonNull("impressionId") && l.json().hasNonNull("device"), l.text());
                continue;
            }
            for (String f : List.of("advertiser", "campaign", "creative", "publisher", "zone", "country", "deviceType", "device")) {
                assertTrue(l.json().hasNonNull(f), f + " missing in " + l.text());
            }
            assertTrue(l.event().number("costMicros") > 0, l.text());
            byAdvertiser.merge(l.event().dimensions().get("advertiser"), 1, Integer::sum);
            byPublisher.merge(l.event().dimensions().get("publisher"), 1, Integer::sum);
        }
        assertEquals(Set.of("epoch-ms", "utc", "offset"), tsForms);
        assertEquals(new HashSet<>(DemoTraffic.advertiserIds()), byAdvertiser.keySet());
        assertEquals(new HashSet<>(DemoTraffic.publisherIds()), byPublisher.keySet());
        int most = byAdvertiser.values().stream().max(Integer::compare).orElseThrow();
        int least = byAdvertiser.values().stream().min(Integer::compare).orElseThrow();
        assertTrue(most > 3 * least, "advertisers " + byAdvertiser);
    }

    @Test
    void traffic_follows_the_daily_curve() throws Exception {
        int morning = liveBeacons("2026-03-10T07:55:00Z");
        int evening = liveBeacons("2026-03-10T19:55:00Z");
        assertTrue(evening > 2 * morning, "08:00 " + morning + " vs 20:00 " + evening);
    }

    private static int liveBeacons(String start) throws Exception {
        MutableClock c = MutableClock.at(start);
        try (FakeIngest server = FakeIngest.start(c);
             DemoTraffic d = DemoTraffic.create(server.url(), DemoOptions.defaults().withRate(20).withBackfill(0, 0), c, x -> { })) {
            d.tick();
            for (int s = 0; s < 60; s++) {
                c.advance(Duration.ofSeconds(5));
                d.tick();
            }
            return server.lines().size();
        }
    }

    private static List<Line> accepted(List<Line> lines) {
        return lines.stream().filter(l -> l.outcome() == Outcome.ACCEPTED).toList();
    }
}
