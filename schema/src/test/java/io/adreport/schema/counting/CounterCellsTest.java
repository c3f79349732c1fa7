package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import io.adreport.schema.rowkey.RawKey;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.time.UtcDay;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The shared addressing: an event's cells (row keys built in place, through one reused scratch)
 * against a recount in this test from the cube's definition and the codec's allocating key
 * builder; and the join targets: the target's raw key on the event's day and the lookback days
 * before.
 */
class CounterCellsTest {
    private static final Cube CUBE = CubeLoader.defaultCube();
    private static final RowKeyCodec KEYS = new RowKeyCodec(CUBE);
    private static final CounterCells CELLS = new CounterCells(CUBE, KEYS);

    private static Event event(String type, String id, String ts, String joinRef) {
        return new Event(type, id, Instant.parse(ts), Map.of(), Map.of(), joinRef, Map.of());
    }

    @Test
    void a_click_looks_for_its_impression_on_its_day_and_each_lookback_day_newest_first() {
        int lookback = CUBE.event().join().lookbackDays();
        List<CounterCells.JoinTarget> targets = CELLS.joinTargets(event("click", "c1", "2026-11-29T00:00:00.001Z", "imp-9"));
        assertEquals(lookback + 1, targets.size());
        LocalDate day = LocalDate.parse("2026-11-29");
        for (int k = 0; k <= lookback; k++) {
            RawKey parsed = KEYS.parseRawKey(targets.get(k).rawKey());
            assertEquals(day.minusDays(k), parsed.day());
            assertEquals(day.minusDays(k).toEpochDay(), targets.get(k).epochDay());
            assertEquals("impression", parsed.type());
            assertEquals("imp-9", parsed.id());
        }
    }

    @Test
    void a_click_just_before_midnight_looks_on_that_day_first() {
        var late = CELLS.joinTargets(event("click", "c1", "2026-11-29T23:59:59.999Z", "imp-9"));
        assertArrayEquals(KEYS.rawKey("impression", "imp-9", LocalDate.parse("2026-11-29").toEpochDay()), late.get(0).rawKey());
        var early = CELLS.joinTargets(event("click", "c1", "2026-11-30T00:00:00Z", "imp-9"));
        assertArrayEquals(late.get(0).rawKey(), early.get(1).rawKey());
    }

    @Test
    void impressions_and_joins_without_a_reference_have_no_targets() {
        assertTrue(CELLS.joinTargets(event("impression", "i1", "2026-11-29T10:00:00Z", null)).isEmpty());
        assertTrue(CELLS.joinTargets(event("click", "c1", "2026-11-29T10:00:00Z", null)).isEmpty());
    }

    @Test
    void every_row_built_in_place_is_the_key_and_deltas_a_recount_from_the_cube_expects() {
        Cube wiki = CubeLoader.load(io.adreport.testkit.Datasets.repositoryRoot()
                .orElseThrow(() -> new IllegalStateException("no repository root above the working directory"))
                .resolve("docs/examples/wikiticker.yaml"));
        for (Cube cube : List.of(CUBE, wiki)) {
            RowKeyCodec codec = new RowKeyCodec(cube);
            CounterCells cells = new CounterCells(cube, codec);
            CounterCells.Scratch scratch = cells.scratch(); // one for every event, as a writer thread holds it
            Random rnd = new Random(7);
            for (int i = 0; i < 400; i++) {
                Event e = randomEvent(cube, rnd, i);
                boolean attributed = rnd.nextBoolean();
                Map<String, Long> expected = recount(cube, codec, e, attributed);
                Map<String, Long> byRow = new HashMap<>();
                int n = cells.forEachRow(e, attributed, scratch, (table, key, length, day, columns, deltas, k) -> {
                    byte[] row = Arrays.copyOf(key, length);
                    assertEquals(UtcDay.epochDayOfBucketMinute(RowKeyCodec.counterBucketMinute(row)), day);
                    for (int j = 0; j < k; j++) {
                        byRow.merge(table + "/" + HexFormat.of().formatHex(row) + "/" + columns[j], deltas[j], Long::sum);
                    }
                });
                Map<String, Long> byCell = new HashMap<>();
                int m = cells.forEach(e, attributed, (table, row, day, column, delta) ->
                        byCell.merge(table + "/" + HexFormat.of().formatHex(row) + "/" + column, delta, Long::sum));
                assertEquals(expected, byRow, cube.name() + " event " + e);
                assertEquals(expected, byCell, cube.name() + " event " + e);
                assertEquals(expected.size(), n);
                assertEquals(expected.size(), m);
            }
        }
    }

    /** The cells of {@code e} from the cube's definition, keys by the codec's allocating builder. */
    private static Map<String, Long> recount(Cube cube, RowKeyCodec codec, Event e, boolean attributed) {
        boolean join = cube.event().join() != null && cube.event().join().appliesTo(e.type());
        boolean unattributed = join && !attributed;
        Map<String, Long> out = new HashMap<>();
        for (int t = 0; t < cube.rollups().size(); t++) {
            Rollup r = cube.rollups().get(t);
            if (unattributed && !r.dimensions().isEmpty()) {
                continue;
            }
            List<String> values = new ArrayList<>();
            r.dimensions().forEach(d -> values.add(e.dimensions().getOrDefault(d, "")));
            for (Granularity g : r.granularities()) {
                long bucket = Math.floorDiv(e.ts().getEpochSecond(), 60 * g.minutes()) * g.minutes();
                String row = HexFormat.of().formatHex(codec.counterKey(r, g, bucket, values));
                for (int c = 0; c < cube.metrics().size(); c++) {
                    Metric metric = cube.metrics().get(c);
                    if (metric.eventType() != null && !metric.eventType().equals(e.type())
                            || metric.unattributed() && !unattributed) {
                        continue;
                    }
                    long delta = metric.kind() == Metric.Kind.COUNT ? 1 : e.numbers().getOrDefault(metric.field(), 0L);
                    if (delta != 0) {
                        out.merge(t + "/" + row + "/" + c, delta, Long::sum);
                    }
                }
            }
        }
        return out;
    }

    /** Values of every dimension, some missing, some non-ASCII (two and three UTF-8 bytes), some long. */
    private static Event randomEvent(Cube cube, Random rnd, int i) {
        String[] samples = {"a", "adv-" + rnd.nextInt(50), "Zürich", "東京", "x".repeat(60), "DE", ""};
        Map<String, String> dims = new HashMap<>();
        for (Dimension d : cube.dimensions()) {
            if (rnd.nextInt(5) > 0) {
                dims.put(d.name(), samples[rnd.nextInt(samples.length)]);
            }
        }
        Map<String, Long> numbers = new HashMap<>();
        for (NumericField f : cube.numericFields()) {
            if (rnd.nextBoolean()) {
                numbers.put(f.name(), (long) rnd.nextInt(1000));
            }
        }
        List<String> types = cube.event().types();
        String type = types.isEmpty() ? null : types.get(rnd.nextInt(types.size()));
        Instant ts = Instant.parse("2026-11-29T00:00:00Z").plusSeconds(rnd.nextInt(3 * 86_400));
        return new Event(type, "e" + i, ts, dims, numbers, rnd.nextBoolean() ? "imp-" + i : null, Map.of());
    }
}
