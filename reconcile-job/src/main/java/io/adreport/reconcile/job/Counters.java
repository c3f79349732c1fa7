package io.adreport.reconcile.job;

/**
 * Names of the per-rollup job counters: group {@code adreport.rollup.NAME}. The maximum single
 * cell drift cannot be summed across reduce tasks, so each task reports its own maximum under
 * {@code MAX_CELL_DRIFT.TASK} and the driver takes the largest.
 */
final class Counters {
    static final String EVENTS = "EVENTS";
    static final String CELLS_CHECKED = "CELLS_CHECKED";
    static final String CELLS_CORRECTED = "CELLS_CORRECTED";
    static final String CELLS_DELETED = "CELLS_DELETED";
    static final String ABSOLUTE_DRIFT = "ABSOLUTE_DRIFT";
    static final String MAX_CELL_DRIFT = "MAX_CELL_DRIFT.";

    private Counters() {
    }

    static String rollupGroup(String rollup) {
        return "adreport.rollup." + rollup;
    }
}
