package io.adreport.reconcile.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.table.TableLayout;
import java.time.LocalDate;
import java.util.List;
import org.apache.hadoop.mapreduce.InputSplit;
import org.junit.jupiter.api.Test;

class ReconcileOptionsTest {

    @Test
    void options_parse() {
        ReconcileOptions o = ReconcileOptions.parse(new String[] {"--day", "2026-11-28", "--dry-run", "--namespace", "ads_test"});
        assertEquals(LocalDate.of(2026, 11, 28), o.day());
        assertTrue(o.dryRun());
        assertEquals("ads_test", o.namespace());
    }

    @Test
    void bad_options_are_rejected_naming_the_option_and_the_rule() {
        assertEquals("--day: is required (YYYY-MM-DD, a UTC day)",
                assertThrows(IllegalArgumentException.class, () -> ReconcileOptions.parse(new String[] {"--dry-run"})).getMessage());
        assertEquals("--day: must be a date YYYY-MM-DD, not '28.11.2026'",
                assertThrows(IllegalArgumentException.class, () -> ReconcileOptions.parse(new String[] {"--day", "28.11.2026"})).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ReconcileOptions.parse(new String[] {"--day"}))
                .getMessage().startsWith("--day: needs a value"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ReconcileOptions.parse(new String[] {"--days", "x"}))
                .getMessage().startsWith("--days: unknown option"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> ReconcileOptions.parse(new String[] {"--day", "2026-11-28", "--namespace", "a:b"})).getMessage().startsWith("--namespace"));
    }

    @Test
    void splits_cover_every_raw_range_of_the_day_once() {
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, "ads");
        List<InputSplit> splits = DayInputFormat.splits(layout, LocalDate.of(2026, 11, 28), 4);
        assertEquals(4, splits.size());
        long ranges = splits.stream().mapToLong(s -> ((DaySplit) s).ranges().size()).sum();
        assertEquals(cube.rawSaltBuckets(), ranges); // stored counters are read by the reduce tasks, not mapped
        assertTrue(splits.stream().allMatch(s -> ((DaySplit) s).ranges().stream().allMatch(r -> r.source() == DaySplit.RAW)));
    }
}
