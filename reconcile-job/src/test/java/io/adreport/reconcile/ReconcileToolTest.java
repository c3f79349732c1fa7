package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ReconcileToolTest {

    @Test
    void the_tool_exits_2_on_bad_options() throws Exception {
        assertEquals(2, new ReconcileTool().run(new String[] {"--day", "yesterday"}));
    }
}
