package io.adreport.reconcile.job;

import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.Closeable;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.mapreduce.Counter;

/**
 * A reduce task's cursor over the stored counter cells of day D in the salt buckets it owns
 * ({@link CellPartitioner}), one counter row at a time in {@link RowKeys} order: rollup by rollup,
 * then the day ranges of each owned bucket and granularity in row order.
 * The reducer merges it with the sorted shuffled keys, so stored values never go through the
 * shuffle. Rows are scanned lazily with the task's one connection, one scan per owned bucket of
 * each rollup: the day's ranges of every granularity of that bucket lie in one region (regions
 * are split by salt bucket), so one scan with a {@link MultiRowRangeFilter} reads them all — a
 * third of the scanner round trips of one scan per range, which is most of what an empty or
 * small day costs.
 *
 * <p>A metric's stored value is the sum of its base and writer cells ({@link CounterValues}).
 * A cell whose value is not 8 bytes is damaged (its value is wrong whatever it holds); a column
 * that is no metric of the cube is counted and skipped. One task thread owns it.
 */
final class StoredCells implements Closeable {
    private final Connection connection;
    private final List<Range> ranges = new ArrayList<>();
    private final byte[][] metrics;
    private final Counter rowsRead;
    private final Counter foreign;
    private final Counter damaged;
    private final RowCells value = new RowCells();
    private int rangeIndex = -1;
    private final RangeScans scans = new RangeScans();
    private byte[] key;

    /** One scan: the day ranges of one bucket's granularities, in key order, in one table. */
    private record Range(int rollup, String table, List<KeyRange> keys) {
    }

    StoredCells(Connection connection, TableLayout layout, CounterCells cells, LocalDate day, int partition, int partitions,
                Counter rowsRead, Counter foreign, Counter damaged) throws IOException {
        this.connection = connection;
        this.metrics = cells.qualifiers();
        this.rowsRead = rowsRead;
        this.foreign = foreign;
        this.damaged = damaged;
        RowKeyCodec keys = new RowKeyCodec(layout.cube());
        List<Rollup> rollups = layout.cube().rollups();
        for (int i = 0; i < rollups.size(); i++) {
            List<Granularity> byCode = new ArrayList<>(rollups.get(i).granularities());
            byCode.sort(Comparator.comparingInt(Granularity::code));
            String name = layout.counterTable(rollups.get(i)).getNameAsString();
            for (int s = 0; s < layout.cube().saltBuckets(); s++) {
                if (CellPartitioner.partitionOf(s, partitions) != partition) {
                    continue;
                }
                List<KeyRange> bucket = new ArrayList<>();
                for (Granularity g : byCode) {
                    bucket.add(keys.counterDayRange(s, g, day));
                }
                ranges.add(new Range(i, name, bucket));
            }
        }
        advance();
    }

    /** Key of the current stored row ({@link RowKeys} encoding), or null when all are read. */
    byte[] key() {
        return key;
    }

    /** The current row's stored cells; reused, so valid until {@link #advance}. */
    RowCells value() {
        return value;
    }

    /** Moves to the next stored row that holds at least one metric cell. */
    void advance() throws IOException {
        if (!nextRow()) {
            key = null;
            value.clear();
        }
    }

    /** Loads the next row that holds metric cells into {@link #key} and {@link #value}; false at the end. */
    private boolean nextRow() throws IOException {
        while (true) {
            Result r = scans.next();
            if (r != null) {
                rowsRead.increment(1);
                int rollup = ranges.get(rangeIndex).rollup();
                value.clear();
                for (Cell c : r.rawCells()) {
                    int column = CounterValues.metricOf(metrics, c);
                    byte[] writer = column >= 0 && CounterValues.isWriterCell(c) ? CellUtil.cloneQualifier(c) : null;
                    if (column < 0) {
                        foreign.increment(1);
                        value.markForeign();
                    } else if (c.getValueLength() == Bytes.SIZEOF_LONG) {
                        value.addStored(column, CounterValues.valueOf(c), c.getTimestamp(), writer);
                    } else {
                        damaged.increment(1);
                        value.addDamaged(column, c.getTimestamp(), writer);
                    }
                }
                if (value.columns() == 0) {
                    continue; // foreign columns only: nothing of the cube to check
                }
                key = RowKeys.encode(rollup, r.getRow());
                return true;
            }
            if (++rangeIndex >= ranges.size()) {
                return false;
            }
            Range range = ranges.get(rangeIndex);
            scans.open(connection, range.table(), scan(range.keys()));
        }
    }

    /** One scan over {@code keys} (sorted, disjoint): the filter seeks from one range to the next. */
    private static Scan scan(List<KeyRange> keys) {
        Scan scan = new Scan().withStartRow(keys.get(0).start()).withStopRow(keys.get(keys.size() - 1).stop())
                .addFamily(TableLayout.COUNTER_FAMILY).setCaching(1000).setCacheBlocks(false);
        if (keys.size() > 1) {
            List<MultiRowRangeFilter.RowRange> rows = new ArrayList<>();
            for (KeyRange k : keys) {
                rows.add(new MultiRowRangeFilter.RowRange(k.start(), true, k.stop(), false));
            }
            scan.setFilter(new MultiRowRangeFilter(rows));
        }
        return scan;
    }

    @Override
    public void close() throws IOException {
        scans.close();
    }
}
