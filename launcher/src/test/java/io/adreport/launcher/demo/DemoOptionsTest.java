package io.adreport.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class DemoOptionsTest {

    @Test
    void defaults_are_a_small_realistic_network() {
        DemoOptions d = DemoOptions.defaults();
        assertEquals(1, d.rate());
        assertEquals(2, d.backfillDays());
        assertEquals(300_000, d.backfillLimit());
        assertEquals(0.05, d.duplicateRate());
        assertTrue(d.lateRate() > 0 && d.malformedRate() > 0);
    }

    @Test
    void the_default_backfill_runs_at_the_live_rate_whenever_it_starts() {
        DemoOptions d = DemoOptions.defaults();
        for (String t : new String[] {"2026-03-10T00:00:00Z", "2026-03-10T12:00:00Z", "2026-03-10T23:59:59Z"}) {
            assertEquals(d.rate(), Backfill.rate(d, Instant.parse(t)), "no scaling, so no step in the chart, at " + t);
        }
        // A much higher rate is back-filled at a smaller scale, within the limit.
        DemoOptions fast = d.withRate(50);
        double scaled = Backfill.rate(fast, Instant.parse("2026-03-10T23:59:59Z"));
        assertTrue(scaled < 50 && scaled * 3 * 86_400 <= d.backfillLimit() * 1.0001, String.valueOf(scaled));
    }

    @Test
    void withers_change_only_their_own_fields() {
        DemoOptions d = DemoOptions.defaults().withRate(500).withSeed(7).withBackfill(1, 10).withShares(0.1, 0.2, 0.3);
        assertEquals(new DemoOptions(500, 7, 1, 10, 0.1, 0.2, 0.3), d);
    }

    @Test
    void invalid_values_are_refused_with_the_option_the_rule_and_the_value() {
        assertMessage("rate must be between 0 and 20000 beacons/s, got -1.0", () -> DemoOptions.defaults().withRate(-1));
        assertMessage("rate must be between 0 and 20000 beacons/s, got NaN", () -> DemoOptions.defaults().withRate(Double.NaN));
        assertMessage("backfillDays must be between 0 and 6, got 7", () -> DemoOptions.defaults().withBackfill(7, 10));
        assertMessage("backfillLimit must be between 0 and 5000000, got -5", () -> DemoOptions.defaults().withBackfill(1, -5));
        assertMessage("duplicateRate must be between 0 and 0.5, got 0.6", () -> DemoOptions.defaults().withShares(0.6, 0, 0));
        assertMessage("lateRate must be between 0 and 0.5, got -0.1", () -> DemoOptions.defaults().withShares(0, -0.1, 0));
        assertMessage("malformedRate must be between 0 and 0.5, got 1.0", () -> DemoOptions.defaults().withShares(0, 0, 1));
    }

    private static void assertMessage(String expected, Runnable r) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertEquals(expected, e.getMessage());
    }
}
