package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.Datasets;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(HBaseExtension.class)
class ReconcileToolTest {

    @Test
    void the_tool_exits_2_on_bad_options() throws Exception {
        assertEquals(2, new ReconcileTool().run(new String[] {"--day", "yesterday"}));
        assertEquals(2, new ReconcileTool().run(new String[] {"--from", "2026-11-20"}));
        assertEquals(2, new ReconcileTool().run(new String[] {"--from", "2026-11-20", "--to", "2026-11-19"}));
    }

    @Test
    void one_submittable_job_is_one_day() {
        assertEquals("--from/--to: one job is one day; give --day", assertThrows(IllegalArgumentException.class,
                () -> ReconcileTool.createSubmittableJob(new Configuration(), new String[] {"--from", "2026-11-20", "--to", "2026-11-21"}))
                .getMessage());
    }

    /**
     * What {@code hadoop jar} runs repairs device view histories for a cube with profiles when the
     * secret is given (as a Hadoop property or in the environment), and says why not otherwise.
     */
    @Test
    void the_tool_repairs_view_histories_of_a_cube_with_profiles_given_the_secret(MiniHBase hbase) throws Exception {
        TableLayout ads = new TableLayout(CubeLoader.defaultCube(), "unused_ns");
        ReconcileConfig config = ReconcileConfig.of(Map.of());
        Configuration conf = new Configuration(hbase.configuration());
        assertFalse(ReconcileTool.reconciler(conf, hbase.connection(), ads, config, Map.of()).repairsViews(), "no secret, no repair");
        assertTrue(ReconcileTool.reconciler(conf, hbase.connection(), ads, config,
                Map.of("ADREPORT_DEVICE_HASH_SECRET", "0123456789abcdef-env")).repairsViews());
        conf.set("device.hash.secret", "0123456789abcdef-prop");
        assertTrue(ReconcileTool.reconciler(conf, hbase.connection(), ads, config, Map.of()).repairsViews());
        TableLayout wiki = new TableLayout(CubeLoader.load(Datasets.repositoryRoot().orElseThrow().resolve("docs/examples/wikiticker.yaml")), "unused_ns");
        assertFalse(ReconcileTool.reconciler(conf, hbase.connection(), wiki, config, Map.of()).repairsViews(), "no profiles, nothing to repair");
    }
}
