package io.adreport.aggregator.coalesce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.metrics.Metrics;
import io.adreport.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FreshnessTest {
    private final MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");
    private final Metrics registry = new Metrics();
    private final CoalescingBuffer buffer = new CoalescingBuffer(2, 1000, clock);
    private final Freshness freshness = Freshness.register(registry, clock);

    @Test
    void lag_runs_from_the_generations_first_add_to_the_end_of_its_flush() {
        buffer.add(0, row("a"), 1, 0, 1);
        clock.advance(Duration.ofMillis(700));
        buffer.add(0, row("b"), 1, 0, 1); // a later add does not move the generation's start
        clock.advance(Duration.ofMillis(300));
        CoalescingBuffer.Generation g = buffer.drainGeneration();
        assertEquals(Instant.parse("2026-12-01T10:00:00Z"), g.firstAdd());
        clock.advance(Duration.ofMillis(450)); // the flush itself

        assertEquals(Optional.of(Duration.ofMillis(1450)), freshness.flushed(g));
        assertTrue(registry.scrape().contains("adreport_freshness_seconds_bucket{le=\"1.5\"} 1"), registry.scrape());
        assertTrue(registry.scrape().contains("adreport_freshness_seconds_bucket{le=\"1.25\"} 0"), registry.scrape());
    }

    @Test
    void the_next_generation_starts_at_its_own_first_add_not_at_the_drain() {
        buffer.add(0, row("a"), 1, 0, 1);
        buffer.drainGeneration();
        clock.advance(Duration.ofSeconds(5)); // idle after the drain
        buffer.add(0, row("a"), 1, 1, 1);
        clock.advance(Duration.ofMillis(200));
        CoalescingBuffer.Generation g = buffer.drainGeneration();

        assertEquals(Instant.parse("2026-12-01T10:00:05Z"), g.firstAdd());
        assertEquals(Optional.of(Duration.ofMillis(200)), freshness.flushed(g));
    }

    @Test
    void an_empty_generation_observes_nothing() {
        CoalescingBuffer.Generation g = buffer.drainGeneration();
        assertNull(g.firstAdd());
        assertEquals(Optional.empty(), freshness.flushed(g));
        assertTrue(registry.scrape().contains("adreport_freshness_seconds_count 0"), registry.scrape());
    }

    @Test
    void a_clock_stepped_back_reports_zero_not_a_negative_lag() {
        buffer.add(0, row("a"), 1, 0, 1);
        CoalescingBuffer.Generation g = buffer.drainGeneration();
        clock.advance(Duration.ofSeconds(-2));
        assertEquals(Optional.of(Duration.ZERO), freshness.flushed(g));
    }

    private static byte[] row(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
