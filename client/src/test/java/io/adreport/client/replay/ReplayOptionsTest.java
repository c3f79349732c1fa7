package io.adreport.client.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayOptionsTest {
    @Test
    void constant_sets_an_event_field_on_every_csv_row() {
        ReplayOptions o = ReplayOptions.parse(List.of("f.csv", "--format", "csv", "--map", "ts=time",
                "--constant", "type=impression,advertiser=a1"));
        assertEquals(Map.of("type", "impression", "advertiser", "a1"), o.constants());
    }

    @Test
    void the_old_set_flag_is_refused_with_its_new_name() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReplayOptions.parse(List.of("f.csv", "--set", "type=impression")));
        assertTrue(e.getMessage().startsWith("--set: renamed to --constant"), e.getMessage());
        assertTrue(ReplayOptions.USAGE.contains("--constant F=V"));
    }
}
