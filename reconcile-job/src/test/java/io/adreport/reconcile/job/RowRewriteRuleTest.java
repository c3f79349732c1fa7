package io.adreport.reconcile.job;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When a row with a fold is written again whole (one family marker and its base cells) instead of per column. */
class RowRewriteRuleTest {

    @Test
    void a_fold_is_written_as_the_whole_row_only_when_that_is_fewer_cells() {
        // one fold of six writer cells (a Put and six markers: 7 cells) in a row of two valued metrics (marker + 2 Puts: 3)
        assertTrue(CellReducer.rewritesRow(true, false, 2, 7));
        // equal counts stay per column
        assertFalse(CellReducer.rewritesRow(true, false, 6, 7));
        // no fold: corrections alone are never written as a whole row
        assertFalse(CellReducer.rewritesRow(false, false, 1, 40));
        // a cell outside the cube's metrics would fall under the family marker
        assertFalse(CellReducer.rewritesRow(true, true, 1, 40));
    }
}
