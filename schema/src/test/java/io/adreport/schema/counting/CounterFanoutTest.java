package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.NumericField;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import io.adreport.testkit.Datasets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The admission bound: no event makes more deltas than {@link CounterFanout#maxCellsPerEvent} of
 * its type. The expected bound and the expected cells are counted here from the cube's definition
 * (its metrics, rollups and granularities), never taken from the class under test.
 */
class CounterFanoutTest {
    private static final Cube ADS = CubeLoader.defaultCube();
    /** A cube without a type field: its events have no type, bounded by {@code maxCellsPerEvent(null)}. */
    private static final Cube WIKI = CubeLoader.load(Datasets.repositoryRoot()
            .orElseThrow(() -> new IllegalStateException("no repository root above the working directory"))
            .resolve("docs/examples/wikiticker.yaml"));

    /** Every declared type of the ads cube, and the "no type" of the wiki cube. */
    static Stream<Arguments> cubeAndType() {
        List<Arguments> cases = new ArrayList<>();
        for (String type : ADS.event().types()) {
            cases.add(Arguments.of(ADS.name(), ADS, type));
        }
        cases.add(Arguments.of(WIKI.name(), WIKI, null));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} cube, type {2}")
    @MethodSource("cubeAndType")
    void the_bound_is_the_metrics_of_the_type_times_the_granularities_of_all_rollups(String name, Cube cube, String type) {
        int expected = metricsOf(cube, type).size() * granularitiesOfAllRollups(cube);
        assertTrue(expected > 0, name + "/" + type + ": the cube counts something for this type");
        assertEquals(expected, new CounterFanout(cube).maxCellsPerEvent(type), name + "/" + type);
    }

    @ParameterizedTest(name = "{0} cube, type {2}")
    @MethodSource("cubeAndType")
    void every_event_makes_the_cells_its_metrics_and_rollups_define_and_never_more_than_the_bound(
            String name, Cube cube, String type) {
        CounterFanout fanout = new CounterFanout(cube);
        int bound = metricsOf(cube, type).size() * granularitiesOfAllRollups(cube);
        boolean join = cube.event().join() != null && cube.event().join().appliesTo(type);
        Random rnd = new Random(7);
        int most = 0;
        for (int i = 0; i < 200; i++) {
            // every other event carries every numeric field (no zero sum), the rest some zeros
            boolean full = i % 2 == 0;
            Map<String, Long> numbers = new HashMap<>();
            for (NumericField f : cube.numericFields()) {
                numbers.put(f.name(), !full && rnd.nextInt(4) == 0 ? 0L : 1L + rnd.nextInt(1000));
            }
            Map<String, String> dims = new HashMap<>();
            for (Dimension d : cube.dimensions()) {
                if (rnd.nextInt(5) != 0) { // sometimes missing: counted under ""
                    dims.put(d.name(), "v" + rnd.nextInt(3));
                }
            }
            Event e = new Event(type, "e" + i, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(rnd.nextInt(86_400)),
                    dims, numbers, join ? "imp" + i : null, Map.of());
            for (boolean attributed : new boolean[] {true, false}) {
                List<String> made = new ArrayList<>();
                fanout.fanOut(e, attributed, (r, g, bucket, values, metric, delta) -> {
                    assertEquals(g.bucketMinute(e.ts()), bucket, "bucket of " + r.name() + "/" + g);
                    made.add(cell(r, g, values, metric, delta));
                });
                List<String> expected = expectedCells(cube, e, join && !attributed);
                assertEquals(new HashSet<>(expected), new HashSet<>(made), name + "/" + type + " event " + i
                        + (attributed ? " attributed" : " unattributed"));
                assertEquals(expected.size(), made.size(), "one delta per cell");
                assertTrue(made.size() <= bound, name + "/" + type + ": " + made.size() + " deltas > bound " + bound);
                most = Math.max(most, made.size());
            }
        }
        // Tight: an event carrying every field reaches the bound, unless the type has metrics that
        // only unattributed join events count (those go to rollups without dimensions only).
        boolean unattributedOnly = metricsOf(cube, type).stream().anyMatch(Metric::unattributed);
        if (!unattributedOnly) {
            assertEquals(bound, most, name + "/" + type + ": an event with every field set reaches the bound");
        } else {
            assertTrue(most > 0 && most < bound, name + "/" + type + ": " + most);
        }
    }

    /** Metrics counting events of {@code type}: those of that type and those of every type. */
    private static List<Metric> metricsOf(Cube cube, String type) {
        List<Metric> out = new ArrayList<>();
        for (Metric m : cube.metrics()) {
            if (m.eventType() == null || m.eventType().equals(type)) {
                out.add(m);
            }
        }
        return out;
    }

    private static int granularitiesOfAllRollups(Cube cube) {
        int n = 0;
        for (Rollup r : cube.rollups()) {
            n += r.granularities().size();
        }
        return n;
    }

    /**
     * The cells {@code e} moves, recounted from the rules in the cube's documentation: a metric of
     * the event's type (or of none); an unattributed metric only for an unattributed join event;
     * a zero sum moves nothing; an unattributed join event reaches only rollups without
     * dimensions; a missing dimension counts under ""; every granularity of a rollup alike.
     */
    private static List<String> expectedCells(Cube cube, Event e, boolean unattributed) {
        List<String> cells = new ArrayList<>();
        for (Rollup r : cube.rollups()) {
            if (unattributed && !r.dimensions().isEmpty()) {
                continue;
            }
            List<String> values = new ArrayList<>();
            for (String d : r.dimensions()) {
                values.add(e.dimensions().getOrDefault(d, ""));
            }
            for (Granularity g : r.granularities()) {
                for (Metric m : metricsOf(cube, e.type())) {
                    if (m.unattributed() && !unattributed) {
                        continue;
                    }
                    long delta = m.kind() == Metric.Kind.COUNT ? 1 : e.numbers().getOrDefault(m.field(), 0L);
                    if (delta != 0) {
                        cells.add(cell(r, g, values, m.name(), delta));
                    }
                }
            }
        }
        return cells;
    }

    private static String cell(Rollup r, Granularity g, List<String> values, String metric, long delta) {
        return r.name() + "/" + g + "/" + values + "/" + metric + "=" + delta;
    }
}
