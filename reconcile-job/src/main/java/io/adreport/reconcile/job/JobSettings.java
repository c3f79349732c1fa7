package io.adreport.reconcile.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.table.TableLayout;
import java.time.LocalDate;
import org.apache.hadoop.conf.Configuration;

/**
 * What a task needs to know, carried in the job configuration so that the same job runs in the
 * local job runner and on YARN, where tasks cannot see the submitter's files: the cube travels
 * as JSON, the day and namespace as strings.
 */
final class JobSettings {
    static final String DAY = "adreport.reconcile.day";
    static final String NAMESPACE = "adreport.reconcile.namespace";
    static final String CUBE_JSON = "adreport.reconcile.cube";
    static final String DRY_RUN = "adreport.reconcile.dry.run";

    /** Input splits; each holds every key range of the salt buckets {@code s % splits == i}. */
    static final String SPLITS = "reconcile.splits";
    /** Join events looked up per batch of Gets. */
    static final String JOIN_BATCH = "reconcile.join.batch";
    /** Distinct cells a map task sums in memory before it spills them to the framework. */
    static final String MAP_BUFFER_CELLS = "reconcile.map.buffer.cells";

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private JobSettings() {
    }

    static void write(Configuration conf, TableLayout layout, LocalDate day, boolean dryRun) {
        conf.set(DAY, day.toString());
        conf.set(NAMESPACE, layout.namespace());
        conf.set(CUBE_JSON, cubeJson(layout.cube()));
        conf.setBoolean(DRY_RUN, dryRun);
    }

    static LocalDate day(Configuration conf) {
        return LocalDate.parse(conf.get(DAY));
    }

    static TableLayout layout(Configuration conf) {
        return new TableLayout(cube(conf.get(CUBE_JSON)), conf.get(NAMESPACE));
    }

    static String cubeJson(Cube cube) {
        try {
            return JSON.writeValueAsString(cube);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize the cube: " + e.getMessage(), e);
        }
    }

    static Cube cube(String json) {
        try {
            return JSON.readValue(json, Cube.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot read the cube from the job configuration: " + e.getMessage(), e);
        }
    }
}
