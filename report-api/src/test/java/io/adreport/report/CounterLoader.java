package io.adreport.report;

import io.adreport.schema.counting.WriterCells;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;

/**
 * Writes the counters of known events the way a live aggregator does — one writer's absolute
 * running totals, a Put of each touched row's writer cells ({@link WriterCells}) at codec-built
 * keys — but with the test's own bucketing (epoch-minute arithmetic) and counting rules
 * ({@link KnownEvent#deltas}), summed per cell first so a load is a few batches. One loader is
 * one writer: its totals grow with every load, as an aggregator's do between restarts.
 */
public final class CounterLoader {
    /** One counter cell: a rollup's table, a row key (not to be mutated), a metric column. */
    public record Cell(String rollup, ByteBuffer row, String metric) {
    }

    private final Connection connection;
    private final Cube cube;
    private final TableLayout layout;
    private final RowKeyCodec codec;
    private final long writer = new java.util.SplittableRandom().nextLong();
    private final Map<String, Map<ByteBuffer, Map<String, Long>>> totals = new LinkedHashMap<>();
    private long lastTimestamp;

    public CounterLoader(Connection connection, Cube cube, TableLayout layout) {
        this.connection = connection;
        this.cube = cube;
        this.layout = layout;
        this.codec = new RowKeyCodec(cube);
    }

    public void load(List<KnownEvent> events) throws IOException {
        add(deltas(events));
    }

    /** The counter deltas of {@code events}, summed per cell: what {@link #load} adds. */
    public Map<Cell, Long> deltas(List<KnownEvent> events) {
        Map<Cell, Long> cells = new LinkedHashMap<>();
        for (Rollup r : cube.rollups()) {
            for (KnownEvent e : events) {
                List<String> values = r.dimensions().stream().map(e::dim).toList();
                for (Granularity g : r.granularities()) {
                    long minute = Math.floorDiv(e.ts().getEpochSecond(), 60);
                    long bucket = minute - Math.floorMod(minute, (long) g.minutes());
                    ByteBuffer row = ByteBuffer.wrap(codec.counterKey(r, g, bucket, values));
                    e.deltas().forEach((m, d) -> cells.merge(new Cell(r.name(), row, m), d, Long::sum));
                }
            }
        }
        return cells;
    }

    /** Adds each cell's delta to this writer's running total and writes every touched row's totals, one Put per row. */
    public synchronized void add(Map<Cell, Long> cells) throws IOException {
        Map<String, Map<ByteBuffer, Map<String, Long>>> touched = new LinkedHashMap<>();
        cells.forEach((c, d) -> {
            Map<String, Long> row = totals.computeIfAbsent(c.rollup(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(c.row(), k -> new LinkedHashMap<>());
            row.merge(c.metric(), d, Long::sum);
            touched.computeIfAbsent(c.rollup(), k -> new LinkedHashMap<>()).computeIfAbsent(c.row(), k -> new LinkedHashMap<>())
                    .put(c.metric(), row.get(c.metric()));
        });
        lastTimestamp = Math.max(System.currentTimeMillis(), lastTimestamp + 1);
        for (Map.Entry<String, Map<ByteBuffer, Map<String, Long>>> t : touched.entrySet()) {
            List<Row> batch = new ArrayList<>();
            t.getValue().forEach((row, metrics) -> batch.add(WriterCells.put(row.array(), writer, metrics, lastTimestamp)));
            try (Table table = connection.getTable(layout.counterTable(t.getKey()))) {
                for (int i = 0; i < batch.size(); i += 2000) {
                    List<Row> chunk = batch.subList(i, Math.min(batch.size(), i + 2000));
                    table.batch(chunk, new Object[chunk.size()]);
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IOException(ex);
            }
        }
    }
}
