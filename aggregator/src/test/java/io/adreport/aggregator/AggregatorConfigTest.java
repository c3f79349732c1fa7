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

    @Test
    void the_buffer_bound_comes_from_the_heap_unless_set_and_a_value_between_0_and_1000_is_refused() {
        long mb = 1L << 20;
        assertEquals(786_432, AggregatorConfig.bufferCells(0, 768 * mb), "768 MB: one cell per KiB");
        assertEquals(2_000_000, AggregatorConfig.bufferCells(0, 3072 * mb), "3 GB: the most the default gives");
        assertEquals(1_000, AggregatorConfig.bufferCells(0, 256L * 1024), "a tiny heap still gets the smallest bound");
        assertEquals(5_000_000, AggregatorConfig.bufferCells(5_000_000, 768 * mb), "a setting is taken as it is");
        assertEquals(40_000, AggregatorConfig.of(Map.of("buffer.max.cells", "40000")).bufferMaxCells());
        long heap = Runtime.getRuntime().maxMemory();
        assertEquals(Math.min(2_000_000, Math.max(1_000, heap / 1024)), AggregatorConfig.of(Map.of()).bufferMaxCells());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AggregatorConfig.of(Map.of("buffer.max.cells", "999")));
        assertTrue(e.getMessage().contains("buffer.max.cells: 0 or 1000..10000000 (0: from the heap"), e.getMessage());
    }
}
