package io.adreport.reconcile.profiles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * How many views of a device a part-of-the-day pass must see before it checks the device: the
 * storage bound it leaves, computed here from the numbers alone (K = 10,000 views, a 120-day TTL
 * spanning 121 UTC days).
 */
class ViewRepairTrimMinTest {
    private static final long K = 10_000;
    private static final long DAYS_SPANNED = 121;

    @Test
    void theThresholdForTypicalSplitCounts() {
        assertEquals(42, ViewRepair.trimMin(1)); // 1 + 10,000 / 242
        assertEquals(21, ViewRepair.trimMin(2)); // 1 + 10,000 / 484
        assertEquals(6, ViewRepair.trimMin(8)); // 1 + 10,000 / 1,936
        assertEquals(3, ViewRepair.trimMin(16)); // 1 + 10,000 / 3,872
        assertEquals(2, ViewRepair.trimMin(64)); // never below 2: a device seen once is never checked
        assertThrows(IllegalArgumentException.class, () -> ViewRepair.trimMin(0));
    }

    @Test
    void whatUncheckedDevicesAddStaysWithinTheStatedBound() {
        for (int splits = 1; splits <= 500; splits++) {
            long t = ViewRepair.trimMin(splits);
            long worst = K + DAYS_SPANNED * splits * (t - 1); // every day, every split: T - 1 views, never checked
            long bound = Math.max(K + K / 2, K + DAYS_SPANNED * splits);
            assertTrue(worst <= bound, splits + " splits: T " + t + " leaves up to " + worst + " views, above " + bound);
        }
    }
}
