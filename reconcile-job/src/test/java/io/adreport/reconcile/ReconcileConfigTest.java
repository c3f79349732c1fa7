package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reconcile job's settings refuse bad values with a message naming the setting and its rule. */
class ReconcileConfigTest {
    @Test
    void out_of_range_settings_are_refused_naming_each_and_its_rule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReconcileConfig.of(Map.of(ReconcileConfig.POLL_MS, "0", ReconcileConfig.BULK_MIN_CELLS, "-2")));
        assertTrue(e.getMessage().contains("reconcile.poll.ms: 10..60000, not '0'"), e.getMessage());
        assertTrue(e.getMessage().contains("reconcile.bulk.min.cells: -1..1000000, not '-2'"), e.getMessage());
    }
}
