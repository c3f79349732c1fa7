package io.adreport.reconcile.job;

/**
 * Job counters of the reconcile job. Every raw row and counter cell the job reads ends up in
 * exactly one of the "read" counters; every record it skips is counted as such.
 */
public enum ReconcileCounter {
    /** Raw rows of the day that parsed into an event and were counted. */
    EVENTS_READ,
    /** Sum of the rows' {@code e:dup} cells: replays acknowledged as duplicates and not counted. */
    DUPLICATES,
    /**
     * Events whose arrival ({@code e:a}) is at or after the end of their UTC day: they arrived
     * after midnight UTC, so a live counter of the day may have been read (or closed) without them.
     */
    LATE_EVENTS,
    /** Join events (clicks, conversions) whose target (impression) was not found. */
    UNATTRIBUTED,
    /** Join events attributed through a target found in the raw table. */
    ATTRIBUTED,
    /** Raw rows skipped because they do not hold a valid event of that row and day. */
    MALFORMED,
    /** Counter rows of the day read from the counter tables. */
    COUNTER_ROWS_READ,
    /** Counter cells skipped because their column is not a metric of the cube (left untouched). */
    FOREIGN_CELLS,
    /** Counter cells whose value is not an 8-byte long (rewritten or deleted like any wrong cell). */
    DAMAGED_CELLS,
    /** Distinct counter cells compared: expected by the recount, stored, or both. */
    CELLS_CHECKED,
    /** Cells written (Put of the exact value) or deleted because they differed. */
    CELLS_CORRECTED,
    /** Of the corrected cells, those deleted because no event of the day counts in them. */
    CELLS_DELETED,
    /** Of the corrected cells, those written by bulk load (HFiles) instead of Puts/Deletes. */
    CELLS_BULK_LOADED,
    /** HFiles of corrections bulk-loaded (one per counter table and region a reduce task corrected). */
    HFILES_LOADED,
    /**
     * Cells whose value was right but held by more than {@code CellReducer.MAX_WRITER_CELLS} live
     * writer cells: rewritten as the base cell alone (not counted as corrected, nor as bulk-loaded).
     */
    CELLS_FOLDED,
    /** The writer cells those folds deleted (one delete marker each; a dry run counts what it would delete). */
    WRITER_CELLS_FOLDED,
    /** Ranked top-N index entries of the day written by the reduce tasks ({@code DayIndexRows}). */
    INDEX_ENTRIES,
    /** Of those, the entries written as HFiles and bulk-loaded ({@code reconcile.index.bulk.min.entries}). */
    INDEX_ENTRIES_BULK_LOADED,
    /** Sum over cells of |expected - stored| (a missing cell stores 0). */
    ABSOLUTE_DRIFT,
    /** View repair in the map tasks ({@code TaskViewRepair}): raw impressions of the day read. */
    VIEW_IMPRESSIONS,
    /** Views (re)written into device histories from those impressions. */
    VIEWS_WRITTEN,
    /** Devices checked against the count bound (once per batch and task that met them). */
    VIEW_DEVICES_CHECKED,
    /** Exact-version deletes of views older than the newest K of their campaign (a device in two tasks is trimmed by both). */
    VIEWS_TRIMMED,
    /** Device rows moved from the previous device secret's hash to the current one's. */
    VIEW_DEVICES_MOVED,
    /** Cells those rows held. */
    VIEW_CELLS_MOVED,
    /** Wall time the map tasks spent in the repair's own work (summed over tasks). */
    VIEW_REPAIR_MILLIS,
    /** Map tasks whose view repair failed (their recount went on; the day is passed again). */
    VIEW_REPAIR_FAILED_TASKS
}
