package io.adreport.aggregator.flush;

/**
 * What one flush did.
 *
 * @param rows               Increments sent (one per counter row)
 * @param cells              counter cells in them
 * @param unappliedCells     cells whose write failed or whose outcome is unknown: not resent (the row's next write restores them)
 * @param droppedClosedCells cells of closed days, not sent
 * @param nanos              duration
 */
public record FlushReport(long rows, long cells, long unappliedCells, long droppedClosedCells, long nanos) {
    public FlushReport {
        if (rows < 0 || cells < 0 || unappliedCells < 0 || droppedClosedCells < 0) {
            throw new IllegalArgumentException("flush report counts must be >= 0");
        }
    }

    public static final FlushReport EMPTY = new FlushReport(0, 0, 0, 0, 0);

    public FlushReport plus(FlushReport o) {
        return new FlushReport(rows + o.rows, cells + o.cells, unappliedCells + o.unappliedCells,
                droppedClosedCells + o.droppedClosedCells, nanos + o.nanos);
    }
}
