package io.adreport.schema.counting;

import io.adreport.schema.table.TableLayout;
import java.util.Map;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * How a live writer puts its counts into a counter row, the one way: one Put per row whose cells
 * are the writer's cells ({@link CounterValues#writerQualifier}) of the metrics it touched, each
 * set to the writer's <em>absolute</em> running total of that metric in that row, all under the
 * flush's timestamp (later flushes of a writer carry later timestamps). The aggregator's flusher
 * sends these Puts; test fixtures that stand for a live aggregator write through here too, so
 * that readers are tested on the cells production writes. Stateless: the running totals are the
 * writer's.
 */
public final class WriterCells {
    private WriterCells() {
    }

    /**
     * The Put of one row: for each column {@code c} whose bit is set in {@code touched}, the cell
     * {@code writerQualifiers[c]} = {@code totals[c]}.
     */
    public static Put put(byte[] row, byte[][] writerQualifiers, long[] totals, int touched, long timestamp) {
        Put put = new Put(row);
        for (int c = 0; c < writerQualifiers.length; c++) {
            if ((touched & (1 << c)) != 0) {
                put.addColumn(TableLayout.COUNTER_FAMILY, writerQualifiers[c], timestamp, Bytes.toBytes(totals[c]));
            }
        }
        return put;
    }

    /** The Put of one row of {@code writer}: each metric (base qualifier name) set to its running total. */
    public static Put put(byte[] row, long writer, Map<String, Long> totals, long timestamp) {
        byte[][] qualifiers = new byte[totals.size()][];
        long[] values = new long[totals.size()];
        int i = 0;
        for (Map.Entry<String, Long> t : totals.entrySet()) {
            qualifiers[i] = CounterValues.writerQualifier(Bytes.toBytes(t.getKey()), writer);
            values[i++] = t.getValue();
        }
        return put(row, qualifiers, values, (int) ((1L << qualifiers.length) - 1), timestamp);
    }
}
