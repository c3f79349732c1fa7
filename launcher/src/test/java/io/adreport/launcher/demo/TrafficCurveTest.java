package io.adreport.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TrafficCurveTest {

    @Test
    void traffic_is_highest_in_the_evening_and_lowest_in_the_morning_utc() {
        double evening = TrafficCurve.multiplier(Instant.parse("2026-03-10T20:00:00Z"));
        double morning = TrafficCurve.multiplier(Instant.parse("2026-03-10T08:00:00Z"));
        assertEquals(1.5, evening, 1e-9);
        assertEquals(0.5, morning, 1e-9);
    }

    @Test
    void the_curve_averages_to_the_configured_rate_over_a_day() {
        double sum = 0;
        int steps = 24 * 60;
        for (int m = 0; m < steps; m++) {
            sum += TrafficCurve.multiplier(Instant.parse("2026-03-10T00:00:00Z").plusSeconds(60L * m));
        }
        assertEquals(1.0, sum / steps, 1e-6);
    }

    @Test
    void any_24_hours_integrate_to_a_day_at_the_average_rate() {
        for (String start : new String[] {"2026-03-10T00:00:00Z", "2026-03-10T13:37:05Z", "2026-03-10T23:59:59.5Z"}) {
            Instant from = Instant.parse(start);
            assertEquals(86_400, TrafficCurve.integral(from, from.plus(Duration.ofDays(1))), 1e-6, start);
        }
    }

    @Test
    void the_integral_adds_up_across_any_cut_including_midnight_and_matches_the_curve() {
        Instant a = Instant.parse("2026-03-10T22:10:00Z");
        Instant b = Instant.parse("2026-03-11T00:00:00Z");
        Instant c = Instant.parse("2026-03-11T01:45:30Z");
        assertEquals(TrafficCurve.integral(a, c), TrafficCurve.integral(a, b) + TrafficCurve.integral(b, c), 1e-6);
        assertEquals(0, TrafficCurve.integral(a, a), 1e-9);
        for (int h = 0; h < 24; h++) {
            Instant hour = Instant.parse("2026-03-10T00:00:00Z").plus(Duration.ofHours(h));
            double midpoint = 3600 * TrafficCurve.multiplier(hour.plus(Duration.ofMinutes(30)));
            assertEquals(midpoint, TrafficCurve.integral(hour, hour.plus(Duration.ofHours(1))), 0.005 * midpoint, "hour " + h);
        }
        double evening = TrafficCurve.integral(Instant.parse("2026-03-10T20:00:00Z"), Instant.parse("2026-03-10T21:00:00Z"));
        double morning = TrafficCurve.integral(Instant.parse("2026-03-10T08:00:00Z"), Instant.parse("2026-03-10T09:00:00Z"));
        assertTrue(evening > 2.5 * morning, evening + " vs " + morning);
    }
}
