package io.adreport.aggregator.coalesce;

import io.adreport.schema.cube.CounterFanout;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Addresses the counter deltas of an event as cells: (table index = rollup position in the
 * cube, row key from {@link RowKeyCodec}, column index = metric position). The counting rules
 * themselves are {@link CounterFanout}'s, shared with the nightly job; this class only turns its
 * output into addresses, reusing the row key across the metrics of one row. Thread-safe.
 */
public final class CounterCells {

    /** Receives one addressed counter delta. */
    @FunctionalInterface
    public interface CellSink {
        void cell(int table, byte[] row, int epochDay, int column, long delta);
    }

    private final Cube cube;
    private final RowKeyCodec codec;
    private final CounterFanout fanout;
    private final Map<Rollup, Integer> tableIndex = new HashMap<>();
    private final Map<String, Integer> columnIndex = new HashMap<>();
    private final byte[][] qualifiers;

    public CounterCells(Cube cube, RowKeyCodec codec) {
        this.cube = cube;
        this.codec = codec;
        this.fanout = new CounterFanout(cube);
        List<Rollup> rollups = cube.rollups();
        for (int i = 0; i < rollups.size(); i++) {
            tableIndex.put(rollups.get(i), i);
        }
        List<Metric> metrics = cube.metrics();
        qualifiers = new byte[metrics.size()][];
        for (int i = 0; i < metrics.size(); i++) {
            columnIndex.put(metrics.get(i).name(), i);
            qualifiers[i] = Bytes.toBytes(metrics.get(i).name());
        }
    }

    public CounterFanout fanout() {
        return fanout;
    }

    public int columns() {
        return qualifiers.length;
    }

    /** Column qualifier of metric column {@code i}. */
    public byte[] qualifier(int column) {
        return qualifiers[column];
    }

    public Rollup rollup(int table) {
        return cube.rollups().get(table);
    }

    /** Emits every counter cell delta of {@code e}; returns how many. */
    public int forEach(Event e, boolean attributed, CellSink sink) {
        int[] n = {0};
        Object[] last = new Object[3]; // rollup, granularity, row key of the previous delta
        long[] lastBucket = {Long.MIN_VALUE};
        fanout.fanOut(e, attributed, (Rollup r, Granularity g, long bucket, List<String> values, String metric, long delta) -> {
            byte[] row;
            if (last[0] == r && last[1] == g && lastBucket[0] == bucket) {
                row = (byte[]) last[2];
            } else {
                row = codec.counterKey(r, g, bucket, values);
                last[0] = r;
                last[1] = g;
                last[2] = row;
                lastBucket[0] = bucket;
            }
            sink.cell(tableIndex.get(r), row, (int) Math.floorDiv(bucket, 1440), columnIndex.get(metric), delta);
            n[0]++;
        });
        return n[0];
    }
}
