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
        assertEquals(DayRange.of(LocalDate.of(2026, 11, 28)), o.days());
        assertTrue(o.dryRun());
        assertEquals("ads_test", o.namespace());
    }

    @Test
    void bad_options_are_rejected_naming_the_option_and_the_rule() {
        assertEquals("reconcile needs --day YYYY-MM-DD",
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
    void the_tool_takes_a_range_of_days_with_the_rules_of_bin_adreport_reconcile() {
        ReconcileOptions o = ReconcileOptions.parse(new String[] {"--from", "2026-11-20", "--to", "2026-11-22"});
        assertEquals(new DayRange(LocalDate.of(2026, 11, 20), LocalDate.of(2026, 11, 22), false), o.days());
        assertEquals(List.of(LocalDate.of(2026, 11, 20), LocalDate.of(2026, 11, 21), LocalDate.of(2026, 11, 22)), o.days().days());
        assertEquals("reconcile takes --day or --from and --to, not both", assertThrows(IllegalArgumentException.class,
                () -> ReconcileOptions.parse(new String[] {"--day", "2026-11-20", "--to", "2026-11-21"})).getMessage());
        assertEquals("reconcile --from needs --to (and --to needs --from): YYYY-MM-DD, both included",
                assertThrows(IllegalArgumentException.class, () -> ReconcileOptions.parse(new String[] {"--from", "2026-11-20"})).getMessage());
        assertEquals("--to: must be a date YYYY-MM-DD, not 'soon'", assertThrows(IllegalArgumentException.class,
                () -> ReconcileOptions.parse(new String[] {"--from", "2026-11-20", "--to", "soon"})).getMessage());
        assertEquals("--to: must not be before --from (2026-11-20), not 2026-11-19", assertThrows(IllegalArgumentException.class,
                () -> ReconcileOptions.parse(new String[] {"--from", "2026-11-20", "--to", "2026-11-19"})).getMessage());
        assertEquals("--to: at most 366 days from --from, not 367", assertThrows(IllegalArgumentException.class,
                () -> ReconcileOptions.parse(new String[] {"--from", "2026-01-01", "--to", "2027-01-02"})).getMessage());
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
