package io.adreport.schema.counting;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * How a counter row holds a metric's value, and the one way to read it back.
 *
 * <p>A metric's value in a counter row is the <b>sum of its cells</b>:
 * <ul>
 *   <li>the <b>base cell</b>, qualifier = the metric's name: what Increments add to (the naive
 *       mode, spend) and what the nightly job writes its exact value to;</li>
 *   <li>any number of <b>writer cells</b>, qualifier = the metric's name, {@code 0x00}, then an
 *       8-byte writer id: each holds one live aggregator writer's <em>absolute</em> running total
 *       of what it has counted into that row (a grow-only counter, one entry per writer).</li>
 * </ul>
 * A writer cell is written by a plain Put of its total, never by an Increment: the region server
 * does no read-modify-write, a batch of them is one WAL append and sync, and writing the same
 * total again changes nothing. A writer id is drawn at random per writer lifetime (a process
 * start, or when the writer starts over to bound its memory), so the number of writer cells in a
 * row is bounded by the writers that touched it, not by its flushes; the nightly job folds them
 * into the base cell when it corrects a row.
 *
 * <p>Every reader of counter values sums through here; a cell whose value is not an 8-byte long
 * counts 0 (the nightly job rewrites it). Stateless.
 */
public final class CounterValues {
    /** The byte between a metric's name and a writer id; metric names never contain it. */
    private static final byte WRITER_MARK = 0;
    private static final int WRITER_SUFFIX = 1 + Bytes.SIZEOF_LONG;

    private CounterValues() {
    }

    /** The qualifier of {@code writer}'s cell of the metric whose base qualifier is {@code metric}. */
    public static byte[] writerQualifier(byte[] metric, long writer) {
        byte[] q = new byte[metric.length + WRITER_SUFFIX];
        System.arraycopy(metric, 0, q, 0, metric.length);
        q[metric.length] = WRITER_MARK;
        Bytes.putLong(q, metric.length + 1, writer);
        return q;
    }

    /**
     * Index in {@code metrics} (base qualifiers) of the metric a qualifier belongs to, as its base
     * cell or a writer cell; -1 when it belongs to none of them.
     */
    public static int metricOf(byte[][] metrics, byte[] q, int off, int len) {
        for (int i = 0; i < metrics.length; i++) {
            byte[] m = metrics[i];
            if ((len == m.length || len == m.length + WRITER_SUFFIX && q[off + m.length] == WRITER_MARK)
                    && Bytes.equals(m, 0, m.length, q, off, m.length)) {
                return i;
            }
        }
        return -1;
    }

    public static int metricOf(byte[][] metrics, Cell c) {
        return metricOf(metrics, c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength());
    }

    /** True when the cell is a writer cell (of whatever metric), not a base cell. */
    public static boolean isWriterCell(Cell c) {
        int len = c.getQualifierLength();
        return len > WRITER_SUFFIX && c.getQualifierArray()[c.getQualifierOffset() + len - WRITER_SUFFIX] == WRITER_MARK;
    }

    /** The cell's value, or 0 when it is not an 8-byte long. */
    public static long valueOf(Cell c) {
        return c.getValueLength() == Bytes.SIZEOF_LONG ? Bytes.toLong(c.getValueArray(), c.getValueOffset()) : 0;
    }

    /** Adds the row's value of each {@code metrics[i]} to {@code sum[i]}; other cells are ignored. */
    public static void addTo(Result r, byte[][] metrics, long[] sum) {
        for (Cell c : r.rawCells()) {
            int i = metricOf(metrics, c);
            if (i >= 0) {
                sum[i] += valueOf(c);
            }
        }
    }

    /**
     * Adds {@code writer}'s own cell of each {@code metrics[i]} to {@code sum[i]} (the live merge,
     * {@link LiveCounts}); true when the row holds at least one cell of that writer.
     */
    public static boolean addWriterTo(Result r, byte[][] metrics, long writer, long[] sum) {
        boolean found = false;
        for (Cell c : r.rawCells()) {
            int len = c.getQualifierLength();
            if (!isWriterCell(c) || Bytes.toLong(c.getQualifierArray(), c.getQualifierOffset() + len - Bytes.SIZEOF_LONG) != writer) {
                continue;
            }
            int i = metricOf(metrics, c);
            if (i >= 0) {
                sum[i] += valueOf(c);
                found = true;
            }
        }
        return found;
    }

    /** The row's value of one metric (base qualifier {@code metric}); 0 when it has no cell of it. */
    public static long value(Result r, byte[] metric) {
        long[] sum = new long[1];
        addTo(r, new byte[][] {metric}, sum);
        return sum[0];
    }
}
