package io.adreport.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DemoOptionsTest {

    @Test
    void defaults_are_a_small_realistic_network() {
        DemoOptions d = DemoOptions.defaults();
        assertEquals(20, d.rate());
        assertEquals(2, d.backfillDays());
        assertEquals(3000, d.backfillPerDay());
        assertEquals(0.05, d.duplicateRate());
        assertTrue(d.lateRate() > 0 && d.malformedRate() > 0);
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
        assertMessage("backfillPerDay must be between 0 and 200000, got -5", () -> DemoOptions.defaults().withBackfill(1, -5));
        assertMessage("duplicateRate must be between 0 and 0.5, got 0.6", () -> DemoOptions.defaults().withShares(0.6, 0, 0));
        assertMessage("lateRate must be between 0 and 0.5, got -0.1", () -> DemoOptions.defaults().withShares(0, -0.1, 0));
        assertMessage("malformedRate must be between 0 and 0.5, got 1.0", () -> DemoOptions.defaults().withShares(0, 0, 1));
    }

    private static void assertMessage(String expected, Runnable r) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertEquals(expected, e.getMessage());
    }
}
