package io.adreport.report;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Writes the counters of known events the way the aggregator would — Increments of 8-byte longs
 * at codec-built keys — but with the test's own bucketing (epoch-minute arithmetic) and counting
 * rules ({@link KnownEvent#deltas}), summed per cell first so a load is a few batches.
 */
public final class CounterLoader {
    private final Connection connection;
    private final Cube cube;
    private final TableLayout layout;
    private final RowKeyCodec codec;

    public CounterLoader(Connection connection, Cube cube, TableLayout layout) {
        this.connection = connection;
        this.cube = cube;
        this.layout = layout;
        this.codec = new RowKeyCodec(cube);
    }

    public void load(List<KnownEvent> events) throws IOException {
        for (Rollup r : cube.rollups()) {
            Map<ByteBuffer, Map<String, Long>> cells = new LinkedHashMap<>();
            for (KnownEvent e : events) {
                List<String> values = r.dimensions().stream().map(e::dim).toList();
                for (Granularity g : r.granularities()) {
                    long minute = Math.floorDiv(e.ts().getEpochSecond(), 60);
                    long bucket = minute - Math.floorMod(minute, (long) g.minutes());
                    byte[] row = codec.counterKey(r, g, bucket, values);
                    Map<String, Long> cols = cells.computeIfAbsent(ByteBuffer.wrap(row), k -> new HashMap<>());
                    e.deltas().forEach((m, d) -> cols.merge(m, d, Long::sum));
                }
            }
            List<Row> batch = new ArrayList<>();
            for (Map.Entry<ByteBuffer, Map<String, Long>> c : cells.entrySet()) {
                Increment inc = new Increment(c.getKey().array());
                c.getValue().forEach((m, d) -> inc.addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes(m), d));
                batch.add(inc);
            }
            try (Table t = connection.getTable(layout.counterTable(r))) {
                for (int i = 0; i < batch.size(); i += 2000) {
                    List<Row> chunk = batch.subList(i, Math.min(batch.size(), i + 2000));
                    t.batch(chunk, new Object[chunk.size()]);
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IOException(ex);
            }
        }
    }
}
