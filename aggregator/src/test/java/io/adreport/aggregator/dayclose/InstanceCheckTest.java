package io.adreport.aggregator.dayclose;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.meta.AggregatorState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InstanceCheckTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final Duration LIVENESS = Duration.ofSeconds(30);

    private static AggregatorState live(String id, int instances) {
        return new AggregatorState(id, NOW.minusSeconds(5), Set.of(), NOW.plusSeconds(25), instances);
    }

    @Test
    void a_second_instance_with_instances_1_is_refused_naming_the_setting_and_the_live_one() {
        var e = assertThrows(IllegalStateException.class,
                () -> InstanceCheck.checkJoin("b", 1, List.of(live("a", 2)), NOW, LIVENESS));
        assertTrue(e.getMessage().startsWith("aggregator.instances: is 1") && e.getMessage().contains("'a'"), e.getMessage());
    }

    @Test
    void joining_a_live_instance_that_dedups_only_against_itself_is_refused() {
        var e = assertThrows(IllegalStateException.class,
                () -> InstanceCheck.checkJoin("b", 2, List.of(live("a", 1)), NOW, LIVENESS));
        assertTrue(e.getMessage().contains("aggregator.instances=1"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> InstanceCheck.checkJoin("b", 2, List.of(live("a", 0)), NOW, LIVENESS));
    }

    @Test
    void an_id_already_live_is_refused() {
        var e = assertThrows(IllegalStateException.class,
                () -> InstanceCheck.checkJoin("a", 2, List.of(live("a", 2)), NOW, LIVENESS));
        assertTrue(e.getMessage().startsWith("aggregator.id: 'a' is already live"), e.getMessage());
    }

    @Test
    void expired_retired_and_old_heartbeats_do_not_count_and_matching_instances_may_join() {
        AggregatorState expired = new AggregatorState("dead", NOW.minusSeconds(60), Set.of(), NOW.minusSeconds(30), 1);
        AggregatorState retired = new AggregatorState("stopped", NOW.minusSeconds(1), Set.of(), NOW.minusSeconds(1), 1);
        AggregatorState undeclaredOld = new AggregatorState("old", NOW.minusSeconds(31), Set.of(), null, 0);
        assertDoesNotThrow(() -> InstanceCheck.checkJoin("b", 1, List.of(expired, retired, undeclaredOld), NOW, LIVENESS));
        assertDoesNotThrow(() -> InstanceCheck.checkJoin("b", 2, List.of(live("a", 2), live("c", 3)), NOW, LIVENESS));
    }
}
