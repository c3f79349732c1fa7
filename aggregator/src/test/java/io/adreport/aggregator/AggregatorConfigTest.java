package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The aggregator's settings refuse bad values with a message naming the setting and its rule. */
class AggregatorConfigTest {
    @Test
    void an_out_of_range_setting_is_refused_naming_it_and_its_rule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AggregatorConfig.of(Map.of("raw.writer.threads", "0")));
        assertTrue(e.getMessage().contains("raw.writer.threads: 1..64, not '0'"), e.getMessage());
    }

    @Test
    void every_mode_is_accepted_by_its_setting_and_nothing_else() {
        for (AggregatorConfig.Mode m : AggregatorConfig.Mode.values()) {
            assertEquals(m, AggregatorConfig.of(Map.of("aggregator.mode", m.setting())).mode());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AggregatorConfig.of(Map.of("aggregator.mode", "batched")));
        assertTrue(e.getMessage().contains("aggregator.mode: coalesced, naive or put-only, not 'batched'"), e.getMessage());
    }

    @Test
    void a_buffer_age_bound_not_above_the_flush_interval_is_refused_naming_both_settings() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AggregatorConfig.of(Map.of("flush.interval.ms", "5000", "buffer.max.age.ms", "5000")));
        assertTrue(e.getMessage().startsWith("buffer.max.age.ms: must be 0 (off) or more than flush.interval.ms (5000)"),
                e.getMessage());
        assertEquals(Duration.ofMillis(5001),
                AggregatorConfig.of(Map.of("flush.interval.ms", "5000", "buffer.max.age.ms", "5001")).bufferMaxAge());
    }
}
