package io.adreport.report;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report API's settings refuse bad values with a message naming the setting and its rule. */
class ReportConfigTest {
    @Test
    void out_of_range_settings_are_refused_naming_each_and_its_rule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReportConfig.of(Map.of("report.port", "70000", "report.max.buckets", "0")));
        assertTrue(e.getMessage().contains("report.port: 0..65535 (0: any free port), not '70000'"), e.getMessage());
        assertTrue(e.getMessage().contains("report.max.buckets: 1..1000000, not '0'"), e.getMessage());
    }
}
