package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.Event;
import io.adreport.schema.rowkey.RawKey;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shared join-target addressing: the target's raw key on the event's day and the lookback days before. */
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
}
