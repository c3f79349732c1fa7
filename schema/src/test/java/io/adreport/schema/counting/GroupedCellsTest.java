package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A group counted per distinct projection ({@link CounterCells#group}) gives the cells of each
 * event counted by {@link CounterCells#forEach}, summed per (table, row, column): same key bytes,
 * same sums, same days, and each row emitted once. The oracle shares the addressing (the codec and
 * the fan-out rules) but not the grouping.
 */
class GroupedCellsTest {

    /** A cube without event types or join, with rollups storing other granularity sets (listed coarse first). */
    private static final Cube OTHER = CubeLoader.parse("edits.yaml", """
            name: edits
            saltBuckets: 8
            rawSaltBuckets: 8
            event: {timeField: time}
            dimensions: [{name: channel}, {name: page}, {name: user}, {name: country}]
            numericFields: [{name: added, min: 0}, {name: deleted, min: 0}]
            metrics:
              - {name: edits, count: true}
              - {name: added, sum: added}
              - {name: deleted, sum: deleted}
            rollups:
              - {name: total, dimensions: []}
              - {name: channel, dimensions: [channel], granularities: [day, 15m]}
              - {name: page, dimensions: [channel, page], granularities: [15m]}
              - {name: user, dimensions: [user, channel], granularities: [hour, 15m]}
              - {name: country, dimensions: [country], granularities: [15m, day]}
            """);

    private record Counted(Event event, boolean attributed) implements CounterCells.Counted {
    }

    @Test
    void the_default_cube_grouped_equals_each_event_counted_alone_then_summed() {
        Cube cube = CubeLoader.defaultCube();
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            int size = 1 + rnd.nextInt(seed % 4 == 0 ? 3 : 600);
            List<Counted> group = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                group.add(adEvent(rnd, i));
            }
            assertSameCells(cube, group, "seed " + seed);
        }
    }

    @Test
    void another_cube_grouped_equals_each_event_counted_alone_then_summed() {
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            int size = 1 + rnd.nextInt(400);
            List<Counted> group = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                Map<String, String> dims = new HashMap<>();
                maybe(rnd, dims, "channel", "#en", "#de", "#fr");
                maybe(rnd, dims, "page", "Main", "Talk:Main", "Ünïcode", "");
                maybe(rnd, dims, "user", "u1", "u2", "u3", "u4");
                maybe(rnd, dims, "country", "DE", "FR");
                Map<String, Long> numbers = new HashMap<>();
                if (rnd.nextBoolean()) {
                    numbers.put("added", (long) rnd.nextInt(50));
                }
                if (rnd.nextBoolean()) {
                    numbers.put("deleted", (long) rnd.nextInt(3));
                }
                group.add(new Counted(new Event(null, "e" + i, time(rnd), dims, numbers, null, Map.of()), rnd.nextBoolean()));
            }
            assertSameCells(OTHER, group, "seed " + seed);
        }
    }

    @Test
    void a_campaign_s_events_of_one_quarter_hour_make_one_row_per_granularity_and_rollup() {
        Cube cube = CubeLoader.defaultCube();
        CounterCells cells = new CounterCells(cube, new RowKeyCodec(cube));
        List<Counted> group = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Map<String, String> dims = Map.of("advertiser", "a1", "campaign", "c1", "creative", "k1",
                    "publisher", "p1", "zone", "z1", "country", "DE", "deviceType", "mobile");
            group.add(new Counted(new Event("impression", "i" + i, Instant.parse("2026-11-29T10:15:00Z").plusMillis(i * 1000L),
                    dims, Map.of("costMicros", 100L), null, Map.of()), false));
        }
        GroupedCells grouped = cells.group(group);
        int rows = cube.rollups().stream().mapToInt(r -> r.granularities().size()).sum();
        assertEquals(cube.rollups().size(), grouped.projections());
        assertEquals(500 * rows * 2, grouped.deltas(), "impressions and spend in every row, per event");
        Map<String, Long> sums = new HashMap<>();
        assertEquals(rows * 2, grouped.emit((table, row, day, column, delta) -> sums.merge(table + "/" + column, delta, Long::sum)));
        assertEquals(500L * rows, sums.entrySet().stream()
                .filter(e -> e.getKey().endsWith("/0")).mapToLong(Map.Entry::getValue).sum());
    }

    @Test
    void an_empty_group_emits_nothing() {
        Cube cube = CubeLoader.defaultCube();
        GroupedCells grouped = new CounterCells(cube, new RowKeyCodec(cube)).group(List.of());
        assertEquals(0, grouped.deltas());
        assertEquals(0, grouped.emit((table, row, day, column, delta) -> {
            throw new AssertionError("no cell expected");
        }));
    }

    @Test
    void every_stored_granularity_is_a_multiple_of_the_finest_so_the_finest_bucket_fixes_the_others() {
        for (Granularity fine : Granularity.values()) {
            for (Granularity coarse : Granularity.values()) {
                if (coarse.minutes() >= fine.minutes()) {
                    assertEquals(0, coarse.minutes() % fine.minutes(), coarse + " over " + fine);
                }
            }
        }
        Rollup r = new Rollup("r", List.of(), null, List.of(Granularity.HOUR, Granularity.MINUTES_15), 10);
        assertEquals(Granularity.MINUTES_15, r.finest());
    }

    private static void assertSameCells(Cube cube, List<Counted> group, String what) {
        RowKeyCodec codec = new RowKeyCodec(cube);
        CounterCells cells = new CounterCells(cube, codec);
        Map<String, Long> oracle = new HashMap<>();
        Map<String, Integer> oracleDays = new HashMap<>();
        int oracleDeltas = 0;
        for (Counted c : group) {
            oracleDeltas += cells.forEach(c.event(), c.attributed(), (table, row, day, column, delta) -> {
                String cell = table + "/" + HexFormat.of().formatHex(row) + "/" + column;
                oracle.merge(cell, delta, Long::sum);
                oracleDays.put(cell, day);
            });
        }
        GroupedCells grouped = cells.group(group);
        Map<String, Long> got = new HashMap<>();
        Set<String> rowsSeen = new HashSet<>();
        byte[][] last = {null};
        String[] lastRow = {null};
        int emitted = grouped.emit((table, row, day, column, delta) -> {
            String rowId = table + "/" + HexFormat.of().formatHex(row);
            if (row != last[0]) { // a row's cells come together, with one key array
                assertFalse(rowsSeen.contains(rowId), what + ": row emitted twice " + rowId);
                rowsSeen.add(rowId);
                last[0] = row;
                lastRow[0] = rowId;
            }
            assertEquals(lastRow[0], rowId, what);
            String cell = rowId + "/" + column;
            assertNull(got.put(cell, delta), what + ": cell emitted twice " + cell);
            assertEquals(oracleDays.get(cell), day, what + ": day of " + cell);
        });
        assertEquals(oracle, got, what);
        assertEquals(oracle.size(), emitted, what);
        assertEquals(oracleDeltas, grouped.deltas(), what);
        assertTrue(grouped.projections() <= group.size() * cube.rollups().size(), what);
    }

    private static Counted adEvent(Random rnd, int i) {
        String type = List.of("impression", "click", "conversion").get(rnd.nextInt(3));
        Map<String, String> dims = new HashMap<>();
        boolean join = !type.equals("impression");
        boolean attributed = rnd.nextBoolean();
        if (!join || attributed || rnd.nextInt(4) == 0) { // an unattributed join event mostly carries no dimensions
            maybe(rnd, dims, "advertiser", "a1", "a2", "a3");
            maybe(rnd, dims, "campaign", "c1", "c2", "c3", "c4");
            maybe(rnd, dims, "creative", "k1", "k2");
            maybe(rnd, dims, "publisher", "p1", "p2");
            maybe(rnd, dims, "zone", "z1", "z2", "z3");
            maybe(rnd, dims, "country", "DE", "FR", "US");
            maybe(rnd, dims, "deviceType", "mobile", "desktop");
        }
        Map<String, Long> numbers = new HashMap<>();
        if (rnd.nextInt(4) > 0) {
            numbers.put("costMicros", (long) rnd.nextInt(3) * 1000);
        }
        if (rnd.nextBoolean()) {
            numbers.put("valueMicros", (long) rnd.nextInt(100_000));
        }
        String ref = join && rnd.nextInt(5) > 0 ? "imp-" + rnd.nextInt(100) : null;
        return new Counted(new Event(type, type + i, time(rnd), dims, numbers, ref, Map.of()), attributed);
    }

    /** Several days and minutes, often on or next to a 15-minute, hour or day boundary. */
    private static Instant time(Random rnd) {
        Instant day = Instant.parse("2026-11-28T00:00:00Z").plusSeconds(86_400L * rnd.nextInt(3));
        long second = switch (rnd.nextInt(4)) {
            case 0 -> 86_400 - 1 - rnd.nextInt(2);            // just before midnight
            case 1 -> 3_600L * rnd.nextInt(24) + 900L * rnd.nextInt(4) - rnd.nextInt(2); // at or just before a boundary
            case 2 -> 36_000 + rnd.nextInt(1_800);             // one busy half hour
            default -> rnd.nextInt(86_400);
        };
        return day.plusSeconds(Math.max(0, second)).plusMillis(rnd.nextInt(1000));
    }

    private static void maybe(Random rnd, Map<String, String> dims, String name, String... values) {
        if (rnd.nextInt(6) > 0) {
            dims.put(name, values[rnd.nextInt(values.length)]);
        }
    }
}
