package io.adreport.reconcile.job;

import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.hbase.BulkHFiles;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.table.TableLayout;
import java.io.Closeable;
import java.io.IOException;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One reduce task's corrections written as HFiles and handed to the region servers
 * ({@link BulkHFiles}, the one HFile writer and bulk loader): the region servers adopt finished
 * files, so a day whose counters are mostly wrong does not go through the MemStore and WAL that
 * live increments use.
 *
 * <p><b>Files.</b> Corrections arrive in {@link RowKeys} order, then by column index, so
 * one counter table is written at a time and its rows arrive sorted. One HFile per counter table
 * and region touched (the task's rows of one region range; the tables are pre-split on the salt
 * buckets a reduce task owns): a file never spans regions, so the load does not split it. The
 * cells of one row are sorted by qualifier before they are appended (the column index is the
 * cube's metric order, not the qualifier's byte order). Files take the live family's settings
 * ({@link BulkHFiles}).
 *
 * <p><b>Which cell wins.</b> A correction is a Put of the exact value or, for a stale cell (stored,
 * recount 0), a DeleteColumn marker in the same file; the metric's writer cells, if any, get a
 * DeleteColumn marker each (the exact value now lives in the base cell alone). Its timestamp is
 * given by the reducer: newer than the newest stored cell of the metric and than the task's start
 * on HBase's clock, so it wins over every live cell of the closed day and over delete markers of
 * earlier runs. On
 * an equal timestamp HBase orders by sequence id; the load asks for one
 * ({@code BulkLoadHFiles.ASSIGN_SEQ_IDS}), which places the file after everything already in the
 * region (the region flushes first), so a tie goes to the correction too.
 *
 * <p><b>Load.</b> {@link #load} first checks that the day is {@code closing} in the meta table —
 * the day-close protocol has run, so no aggregator increments it — and fails the task otherwise:
 * an increment applied after the stored cells were read would be silently overwritten, or, being
 * newer, would hide the correction. Then one bulk load per table. A retried task attempt loads
 * the same absolute values again, with newer timestamps: idempotent. One task thread owns this.
 */
final class BulkCorrections implements Closeable {
    private final Connection connection;
    private final TableLayout layout;
    private final CounterCells cells;
    private final BulkHFiles files;
    private final List<KeyValue> row = new ArrayList<>();
    private int rollup = -1;
    private byte[] rowKey;
    private TableName table;
    private byte[][] regionStarts;
    private byte[] regionEnd;
    private boolean open;
    private long cellCount;

    BulkCorrections(Configuration conf, Connection connection, TableLayout layout, CounterCells cells, Path dir, String task)
            throws IOException {
        this.connection = connection;
        this.layout = layout;
        this.cells = cells;
        this.files = new BulkHFiles(conf, connection, dir, task); // a previous attempt's directory is deleted
    }

    /**
     * Adds one correction; calls must come in {@link RowKeys} order, then by column index. {@code delete}: a stale cell.
     * {@code writerCells}: the column's writer cells, deleted by the same timestamp (folded into the base cell).
     */
    void add(int rollupIndex, byte[] rowBytes, int column, long value, boolean delete, long timestamp, List<byte[]> writerCells)
            throws IOException {
        startRow(rollupIndex, rowBytes);
        byte[] qualifier = cells.qualifier(column);
        row.add(delete
                ? new KeyValue(rowBytes, TableLayout.COUNTER_FAMILY, qualifier, timestamp, KeyValue.Type.DeleteColumn)
                : new KeyValue(rowBytes, TableLayout.COUNTER_FAMILY, qualifier, timestamp, KeyValue.Type.Put, Bytes.toBytes(value)));
        for (byte[] w : writerCells) {
            row.add(new KeyValue(rowBytes, TableLayout.COUNTER_FAMILY, w, timestamp, KeyValue.Type.DeleteColumn));
        }
        cellCount++;
    }

    /** A DeleteFamily marker for {@code rowBytes} at {@code timestamp}: the row written again whole (its base cells follow). */
    void deleteFamily(int rollupIndex, byte[] rowBytes, long timestamp) throws IOException {
        startRow(rollupIndex, rowBytes);
        row.add(new KeyValue(rowBytes, TableLayout.COUNTER_FAMILY, null, timestamp, KeyValue.Type.DeleteFamily));
    }

    /** Moves to {@code rowBytes} of {@code rollupIndex}'s table: the row before it goes to its file. */
    private void startRow(int rollupIndex, byte[] rowBytes) throws IOException {
        if (rollupIndex != rollup || !Arrays.equals(rowBytes, rowKey)) {
            flushRow();
            if (rollupIndex != rollup) {
                openTable(rollupIndex);
            }
            rowKey = rowBytes;
        }
    }

    int files() {
        return files.files();
    }

    /**
     * Closes the files and loads them, table by table, after checking that {@code day} is closed
     * for live counting; throws (naming the day and its status) when it is not.
     */
    void load(LocalDate day) throws IOException {
        flushRow();
        if (files.files() == 0) {
            return;
        }
        DayState state = new DayStatusStore(connection, layout, Clock.systemUTC()).day(day);
        if (state.status() != DayStatus.CLOSING) {
            throw new IllegalStateException("bulk load of " + cellCount + " corrections of " + day + " refused: the day is "
                    + state.status().name().toLowerCase() + ", not closing — the day-close protocol must have completed"
                    + " (aggregators stopped incrementing the day) before corrections are loaded; run the job through"
                    + " Reconciler (bin/adreport reconcile, hadoop jar), which closes the day first");
        }
        files.load();
    }

    private void openTable(int rollupIndex) throws IOException {
        rollup = rollupIndex;
        open = false;
        table = layout.counterTable(layout.cube().rollups().get(rollupIndex));
        try (RegionLocator locator = connection.getRegionLocator(table)) {
            regionStarts = locator.getStartKeys();
        }
        Arrays.sort(regionStarts, Bytes.BYTES_COMPARATOR);
    }

    /** Appends the buffered row, sorted by qualifier, to the file of the row's region. */
    private void flushRow() throws IOException {
        if (row.isEmpty()) {
            return;
        }
        if (!open || (regionEnd != null && Bytes.compareTo(rowKey, regionEnd) >= 0)) {
            openFile(rowKey);
        }
        row.sort(CellComparatorImpl.COMPARATOR);
        for (KeyValue kv : row) {
            files.append(kv);
        }
        row.clear();
    }

    /** A new file for the region holding {@code firstRow}: a file never spans regions, so the load does not split it. */
    private void openFile(byte[] firstRow) throws IOException {
        int region = 0;
        while (region + 1 < regionStarts.length && Bytes.compareTo(regionStarts[region + 1], firstRow) <= 0) {
            region++;
        }
        regionEnd = region + 1 < regionStarts.length ? regionStarts[region + 1] : null;
        files.newFile(table, TableLayout.COUNTER_FAMILY);
        open = true;
    }

    /** Removes this task's files (after a load, what is left is empty directories). */
    @Override
    public void close() throws IOException {
        files.close();
    }
}
