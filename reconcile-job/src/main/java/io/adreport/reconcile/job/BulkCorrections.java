package io.adreport.reconcile.job;

import io.adreport.schema.counting.CounterCells;
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
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreFileWriter;
import org.apache.hadoop.hbase.regionserver.StoreUtils;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One reduce task's corrections written as HFiles and handed to the region servers with
 * {@link BulkLoadHFiles}: the region servers adopt finished files, so a day whose counters are
 * mostly wrong does not go through the MemStore and WAL that live increments use.
 *
 * <p><b>Files.</b> Corrections arrive in {@link RowKeys} order, then by column index, so
 * one counter table is written at a time and its rows arrive sorted. One HFile per counter table
 * and region touched (the task's rows of one region range; the tables are pre-split on the salt
 * buckets a reduce task owns): a file never spans regions, so the load does not split it. The
 * cells of one row are sorted by qualifier before they are appended (the column index is the
 * cube's metric order, not the qualifier's byte order). Files take the live family's Bloom type,
 * block encoding, compression and block size, like {@code HFileOutputFormat2}, and are laid out
 * as {@code DIR/ROLLUP-INDEX/c/FILE}, the family directory {@code BulkLoadHFiles} expects.
 *
 * <p><b>Which cell wins.</b> A correction is a Put of the exact value or, for a stale cell (stored,
 * recount 0), a DeleteColumn marker in the same file; the metric's writer cells, if any, get a
 * DeleteColumn marker each (the exact value now lives in the base cell alone). Its timestamp is
 * given by the reducer: newer than the newest stored cell of the metric and than the task's start
 * on HBase's clock, so it wins over every live cell of the closed day and over delete markers of
 * earlier runs. On
 * an equal timestamp HBase orders by sequence id; the load asks for one
 * ({@link BulkLoadHFiles#ASSIGN_SEQ_IDS}), which places the file after everything already in the
 * region (the region flushes first), so a tie goes to the correction too.
 *
 * <p><b>Load.</b> {@link #load} first checks that the day is {@code closing} in the meta table —
 * the day-close protocol has run, so no aggregator increments it — and fails the task otherwise:
 * an increment applied after the stored cells were read would be silently overwritten, or, being
 * newer, would hide the correction. Then one bulk load per table. A retried task attempt loads
 * the same absolute values again, with newer timestamps: idempotent. One task thread owns this.
 */
final class BulkCorrections implements Closeable {
    private final Configuration conf;
    private final Connection connection;
    private final TableLayout layout;
    private final CounterCells cells;
    private final FileSystem fs;
    private final Path dir;
    private final String task;
    private final List<KeyValue> row = new ArrayList<>();
    private int rollup = -1;
    private byte[] rowKey;
    private TableName table;
    private ColumnFamilyDescriptor family;
    private byte[][] regionStarts;
    private byte[] regionEnd;
    private StoreFileWriter writer;
    private boolean[] written;
    private long cellCount;
    private int files;

    BulkCorrections(Configuration conf, Connection connection, TableLayout layout, CounterCells cells, Path dir, String task)
            throws IOException {
        this.conf = conf;
        this.connection = connection;
        this.layout = layout;
        this.cells = cells;
        this.fs = dir.getFileSystem(conf);
        this.dir = dir;
        this.task = task;
        this.written = new boolean[layout.cube().rollups().size()];
        if (fs.exists(dir)) { // a previous attempt of this task that failed before its load
            fs.delete(dir, true);
        }
    }

    /**
     * Adds one correction; calls must come in {@link RowKeys} order, then by column index. {@code delete}: a stale cell.
     * {@code writerCells}: the column's writer cells, deleted by the same timestamp (folded into the base cell).
     */
    void add(int rollupIndex, byte[] rowBytes, int column, long value, boolean delete, long timestamp, List<byte[]> writerCells)
            throws IOException {
        if (rollupIndex != rollup || !Arrays.equals(rowBytes, rowKey)) {
            flushRow();
            if (rollupIndex != rollup) {
                openTable(rollupIndex);
            }
            rowKey = rowBytes;
        }
        byte[] qualifier = cells.qualifier(column);
        row.add(delete
                ? new KeyValue(rowBytes, TableLayout.COUNTER_FAMILY, qualifier, timestamp, KeyValue.Type.DeleteColumn)
                : new KeyValue(rowBytes, TableLayout.COUNTER_FAMILY, qualifier, timestamp, KeyValue.Type.Put, Bytes.toBytes(value)));
        for (byte[] w : writerCells) {
            row.add(new KeyValue(rowBytes, TableLayout.COUNTER_FAMILY, w, timestamp, KeyValue.Type.DeleteColumn));
        }
        cellCount++;
    }

    long cells() {
        return cellCount;
    }

    int files() {
        return files;
    }

    /**
     * Closes the files and loads them, table by table, after checking that {@code day} is closed
     * for live counting; throws (naming the day and its status) when it is not.
     */
    void load(LocalDate day) throws IOException {
        flushRow();
        closeWriter();
        if (files == 0) {
            return;
        }
        DayState state = new DayStatusStore(connection, layout, Clock.systemUTC()).day(day);
        if (state.status() != DayStatus.CLOSING) {
            throw new IllegalStateException("bulk load of " + cellCount + " corrections of " + day + " refused: the day is "
                    + state.status().name().toLowerCase() + ", not closing — the day-close protocol must have completed"
                    + " (aggregators stopped incrementing the day) before corrections are loaded; run the job through"
                    + " Reconciler (bin/adreport reconcile, hadoop jar), which closes the day first");
        }
        Configuration c = new Configuration(conf);
        c.setBoolean(BulkLoadHFiles.ASSIGN_SEQ_IDS, true);
        BulkLoadHFiles loader = BulkLoadHFiles.create(c);
        for (int i = 0; i < written.length; i++) {
            if (!written[i]) {
                continue;
            }
            TableName name = layout.counterTable(layout.cube().rollups().get(i));
            Map<BulkLoadHFiles.LoadQueueItem, java.nio.ByteBuffer> loaded = loader.bulkLoad(name, tableDir(i));
            if (loaded.isEmpty()) {
                throw new IOException("bulk load into " + name + " loaded no file from " + tableDir(i));
            }
        }
    }

    private Path tableDir(int rollupIndex) {
        return new Path(dir, Integer.toString(rollupIndex));
    }

    private void openTable(int rollupIndex) throws IOException {
        closeWriter();
        rollup = rollupIndex;
        table = layout.counterTable(layout.cube().rollups().get(rollupIndex));
        try (Admin admin = connection.getAdmin(); RegionLocator locator = connection.getRegionLocator(table)) {
            family = admin.getDescriptor(table).getColumnFamily(TableLayout.COUNTER_FAMILY);
            regionStarts = locator.getStartKeys();
        }
        if (family == null) {
            throw new IOException(table + ": no family " + Bytes.toString(TableLayout.COUNTER_FAMILY));
        }
        Arrays.sort(regionStarts, Bytes.BYTES_COMPARATOR);
    }

    /** Appends the buffered row, sorted by qualifier, to the file of the row's region. */
    private void flushRow() throws IOException {
        if (row.isEmpty()) {
            return;
        }
        if (writer == null || (regionEnd != null && Bytes.compareTo(rowKey, regionEnd) >= 0)) {
            openWriter(rowKey);
        }
        row.sort(CellComparatorImpl.COMPARATOR);
        for (KeyValue kv : row) {
            writer.append(kv);
        }
        row.clear();
    }

    private void openWriter(byte[] firstRow) throws IOException {
        closeWriter();
        int region = 0;
        while (region + 1 < regionStarts.length && Bytes.compareTo(regionStarts[region + 1], firstRow) <= 0) {
            region++;
        }
        regionEnd = region + 1 < regionStarts.length ? regionStarts[region + 1] : null;
        HFileContext context = new HFileContextBuilder()
                .withCompression(family.getCompressionType())
                .withDataBlockEncoding(family.getDataBlockEncoding())
                .withBlockSize(family.getBlocksize())
                .withChecksumType(StoreUtils.getChecksumType(conf))
                .withBytesPerCheckSum(StoreUtils.getBytesPerChecksum(conf))
                .withIncludesTags(HFile.getFormatVersion(conf) >= 3)
                .withColumnFamily(TableLayout.COUNTER_FAMILY)
                .withTableName(table.getName())
                .build();
        Path familyDir = new Path(tableDir(rollup), Bytes.toString(TableLayout.COUNTER_FAMILY));
        writer = new StoreFileWriter.Builder(conf, CacheConfig.DISABLED, fs).withOutputDir(familyDir)
                .withBloomType(family.getBloomFilterType()).withFileContext(context).build();
        written[rollup] = true;
        files++;
    }

    private void closeWriter() throws IOException {
        if (writer == null) {
            return;
        }
        writer.appendFileInfo(HStoreFile.BULKLOAD_TIME_KEY, Bytes.toBytes(System.currentTimeMillis()));
        writer.appendFileInfo(HStoreFile.BULKLOAD_TASK_KEY, Bytes.toBytes(task));
        // Not a major-compaction result: the file holds delete markers that must meet the cells they mask.
        writer.appendFileInfo(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendFileInfo(HStoreFile.EXCLUDE_FROM_MINOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendTrackedTimestampsToMetadata();
        writer.close();
        writer = null;
    }

    /** Removes this task's files (after a load, what is left is empty directories). */
    @Override
    public void close() throws IOException {
        try {
            closeWriter();
        } finally {
            fs.delete(dir, true);
        }
    }
}
