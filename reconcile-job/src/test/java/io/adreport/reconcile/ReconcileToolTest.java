package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

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
}
