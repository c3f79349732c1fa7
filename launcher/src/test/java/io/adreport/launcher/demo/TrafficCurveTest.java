package io.adreport.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
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
    void hourly_shares_add_up_to_the_day_total_and_follow_the_curve() {
        int[] shares = TrafficCurve.hourlyShares(3001, LocalDate.parse("2026-03-09"));
        assertEquals(24, shares.length);
        assertEquals(3001, Arrays.stream(shares).sum());
        assertTrue(shares[20] > 2 * shares[8], Arrays.toString(shares));
        assertEquals(0, Arrays.stream(TrafficCurve.hourlyShares(0, LocalDate.parse("2026-03-09"))).sum());
    }
}
