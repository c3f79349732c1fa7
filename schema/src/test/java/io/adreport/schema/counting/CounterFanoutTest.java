package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.NumericField;
import io.adreport.schema.event.Event;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The admission bound: no event makes more deltas than {@link CounterFanout#maxCellsPerEvent} of its type. */
class CounterFanoutTest {
    private static final Cube CUBE = CubeLoader.defaultCube();
    private static final CounterFanout FANOUT = new CounterFanout(CUBE);

    @Test
    void no_event_makes_more_deltas_than_its_types_bound_and_a_full_event_makes_exactly_that_many() {
        Random rnd = new Random(7);
        for (String type : CUBE.event().types()) {
            int bound = FANOUT.maxCellsPerEvent(type);
            assertTrue(bound > 0, type);
            int most = 0;
            for (int i = 0; i < 200; i++) {
                Map<String, Long> numbers = new HashMap<>();
                for (NumericField f : CUBE.numericFields()) {
                    numbers.put(f.name(), rnd.nextInt(4) == 0 ? 0L : 1L + rnd.nextInt(1000));
                }
                Map<String, String> dims = new HashMap<>();
                for (Dimension d : CUBE.dimensions()) {
                    dims.put(d.name(), "v" + rnd.nextInt(3));
                }
                Event e = new Event(type, "e" + i, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(rnd.nextInt(86_400)),
                        dims, numbers, FANOUT.isJoinEvent(new Event(type, "x", Instant.EPOCH, Map.of(), Map.of(), null, Map.of())) ? "imp" : null,
                        Map.of());
                for (boolean attributed : new boolean[] {true, false}) {
                    int[] n = {0};
                    FANOUT.fanOut(e, attributed, (r, g, bucket, values, metric, delta) -> n[0]++);
                    assertTrue(n[0] <= bound, type + ": " + n[0] + " deltas > bound " + bound);
                    most = Math.max(most, n[0]);
                }
            }
            // The bound is tight for events that carry every metric of their type (unattributed-only
            // metrics aside, which go to rollups without dimensions only).
            assertTrue(most > 0, type + " made deltas");
            long unattributedOnly = CUBE.metrics().stream()
                    .filter(m -> m.unattributed() && (m.eventType() == null || m.eventType().equals(type))).count();
            if (unattributedOnly == 0) {
                assertEquals(bound, most, type + ": an event with every field set reaches the bound");
            }
        }
    }
}
