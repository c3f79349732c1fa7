package io.adreport.reconcile.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.ReconcileConfig;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeException;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.Datasets;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class JobSettingsTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 28);
    private static final ReconcileConfig CONFIG = ReconcileConfig.of(Map.of(ReconcileConfig.SPLITS, "7",
            ReconcileConfig.JOIN_BATCH, "250", ReconcileConfig.MAP_BUFFER_CELLS, "5000",
            ReconcileConfig.BULK_MIN_CELLS, "-1", ReconcileConfig.INDEX_BULK_MIN_ENTRIES, "30"));

    @Test
    void the_ads_cube_travels_as_its_own_text_and_reads_back_the_same() {
        Cube ads = CubeLoader.defaultCube();
        JobSettings back = roundTrip(ads);
        assertEquals(CubeLoader.defaultSource(), back.layout().cube().source(), "the resource text, as shipped");
        assertSameCube(ads, back.layout().cube());
    }

    @Test
    void a_cube_file_travels_as_written_and_reads_back_the_same() {
        Cube wiki = CubeLoader.load(Datasets.repositoryRoot().orElseThrow().resolve("docs/examples/wikiticker.yaml"));
        JobSettings back = roundTrip(wiki);
        assertEquals(wiki.source(), back.layout().cube().source(), "the file's text, as the user wrote it");
        assertSameCube(wiki, back.layout().cube());
    }

    @Test
    void the_day_namespace_dry_run_and_settings_travel_with_it() {
        Configuration conf = new Configuration(false);
        JobSettings.write(conf, new TableLayout(CubeLoader.defaultCube(), "ads_test"), DAY, true, CONFIG);
        JobSettings back = JobSettings.from(conf);
        assertEquals("ads_test", back.layout().namespace());
        assertEquals(DAY, back.day());
        assertTrue(back.dryRun());
        assertEquals(7, back.splits());
        assertEquals(250, back.joinBatch());
        assertEquals(5000, back.mapBufferCells());
        assertEquals(-1, back.bulkMinCells());
        assertEquals(30, back.indexBulkMinEntries());
    }

    @Test
    void a_task_side_read_of_a_missing_setting_names_it() {
        for (String name : List.of(ReconcileConfig.JOIN_BATCH, ReconcileConfig.MAP_BUFFER_CELLS, ReconcileConfig.SPLITS, ReconcileConfig.BULK_MIN_CELLS,
                ReconcileConfig.INDEX_BULK_MIN_ENTRIES,
                JobSettings.DAY, JobSettings.NAMESPACE, JobSettings.CUBE_TEXT, JobSettings.CUBE_NAME, JobSettings.DRY_RUN)) {
            Configuration conf = new Configuration(false);
            JobSettings.write(conf, new TableLayout(CubeLoader.defaultCube(), "ads"), DAY, false, CONFIG);
            conf.unset(name);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> JobSettings.from(conf), name);
            assertTrue(e.getMessage().startsWith(name + ": missing from the job configuration"), e.getMessage());
        }
    }

    @Test
    void a_task_side_read_checks_a_setting_by_its_rule() {
        Configuration conf = new Configuration(false);
        JobSettings.write(conf, new TableLayout(CubeLoader.defaultCube(), "ads"), DAY, false, CONFIG);
        conf.set(ReconcileConfig.JOIN_BATCH, "0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JobSettings.from(conf));
        assertTrue(e.getMessage().contains(ReconcileConfig.JOIN_BATCH), e.getMessage());
        conf.set(ReconcileConfig.JOIN_BATCH, "5");
        conf.set(ReconcileConfig.BULK_MIN_CELLS, "-2");
        e = assertThrows(IllegalArgumentException.class, () -> JobSettings.from(conf));
        assertTrue(e.getMessage().contains(ReconcileConfig.BULK_MIN_CELLS) && e.getMessage().contains("-1..1000000"), e.getMessage());
    }

    @Test
    void a_damaged_cube_text_is_rejected_by_the_cube_loader_in_the_task() {
        Configuration conf = new Configuration(false);
        JobSettings.write(conf, new TableLayout(CubeLoader.defaultCube(), "ads"), DAY, false, CONFIG);
        conf.set(JobSettings.CUBE_TEXT, conf.get(JobSettings.CUBE_TEXT).replace("saltBuckets: 16", "saltBuckets: 0"));
        CubeException e = assertThrows(CubeException.class, () -> JobSettings.from(conf));
        assertTrue(e.getMessage().startsWith("ads.yaml (built in): saltBuckets: must be an integer in 1..256"), e.getMessage());
    }

    @Test
    void a_cube_built_in_code_cannot_be_sent_to_the_tasks() {
        Cube c = CubeLoader.defaultCube();
        Cube built = new Cube(c.name(), c.event(), c.dimensions(), c.numericFields(), c.metrics(), c.derived(), c.rollups(),
                4, 4, c.rawTtlDays(), c.maxValueLength());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JobSettings.write(new Configuration(false), new TableLayout(built, "ads"), DAY, false, CONFIG));
        assertTrue(e.getMessage().contains("built in code"), e.getMessage());
    }

    private static JobSettings roundTrip(Cube cube) {
        Configuration conf = new Configuration(false);
        JobSettings.write(conf, new TableLayout(cube, cube.name()), DAY, false, CONFIG);
        // What a task gets: the configuration written to job.xml and read back.
        ByteArrayOutputStream xml = new ByteArrayOutputStream();
        try {
            conf.writeXml(xml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Configuration task = new Configuration(false);
        task.addResource(new ByteArrayInputStream(xml.toByteArray()));
        JobSettings back = JobSettings.from(task);
        assertFalse(back.dryRun());
        return back;
    }

    /** Field by field: a dimension's pattern is a {@code Pattern}, which has no value equality. */
    private static void assertSameCube(Cube expected, Cube actual) {
        assertEquals(expected.name(), actual.name());
        assertEquals(expected.event(), actual.event());
        assertEquals(expected.numericFields(), actual.numericFields());
        assertEquals(expected.metrics(), actual.metrics());
        assertEquals(expected.derived(), actual.derived());
        assertEquals(expected.rollups(), actual.rollups());
        assertEquals(expected.saltBuckets(), actual.saltBuckets());
        assertEquals(expected.rawSaltBuckets(), actual.rawSaltBuckets());
        assertEquals(expected.rawTtlDays(), actual.rawTtlDays());
        assertEquals(expected.maxValueLength(), actual.maxValueLength());
        assertEquals(expected.dimensions().size(), actual.dimensions().size());
        for (int i = 0; i < expected.dimensions().size(); i++) {
            Dimension e = expected.dimensions().get(i);
            Dimension a = actual.dimensions().get(i);
            assertEquals(List.of(e.name(), e.maxLength(), e.normalize(), String.valueOf(e.pattern())),
                    List.of(a.name(), a.maxLength(), a.normalize(), String.valueOf(a.pattern())));
        }
    }
}
