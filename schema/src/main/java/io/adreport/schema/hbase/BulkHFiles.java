package io.adreport.schema.hbase;

import java.io.Closeable;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
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
 * The one way adreport writes HFiles and bulk-loads them (the nightly job's corrections, the
 * segment loads, benchmark data): cells appended to files of a table's family, then handed to
 * the region servers with {@link BulkLoadHFiles}, which adopt finished files (no MemStore, no
 * WAL, no flush competing with live writes).
 *
 * <p><b>Files.</b> {@link #newFile} starts a file of one table and family; it takes the family's
 * Bloom type, block encoding, compression and block size, like {@code HFileOutputFormat2}. The
 * cells of one file must be appended in {@code CellComparator} order (row, family, qualifier,
 * newest first). A caller that starts a new file where a region starts gets files the load never
 * splits; a file spanning regions is split by the load. The layout is
 * {@code DIR/TABLE-INDEX/FAMILY/FILE}, the family directories {@code BulkLoadHFiles} expects.
 * Every file is marked as no major-compaction result (it may hold delete markers that must meet
 * the cells they mask) and carries the load time and, when given, the task that wrote it.
 *
 * <p><b>Load.</b> {@link #load} closes the open file and loads each table's directory with
 * {@link BulkLoadHFiles#ASSIGN_SEQ_IDS}: a loaded file is placed after everything already in the
 * region (the region flushes first), so on an equal timestamp its cells win. A table whose load
 * adopts no file fails it. {@link #close} deletes the directory (after a load, empty folders).
 *
 * <p>Staging: {@code dir} should come from {@link BulkStaging} (the cluster's file system); a
 * directory left by an earlier attempt is deleted first. One thread owns an instance.
 */
public final class BulkHFiles implements Closeable {
    /**
     * The one switch rule of every path that holds its first writes and turns to HFiles once it has
     * many ({@code reconcile.bulk.min.cells}, {@code reconcile.index.bulk.min.entries}): with
     * {@code min} = -1 never, 0 from the first write, N from the N-th; {@code held} is how many it has.
     */
    public static boolean reached(int min, long held) {
        return min >= 0 && held >= Math.max(1, min);
    }

    private final Configuration conf;
    private final Connection connection;
    private final FileSystem fs;
    private final Path dir;
    private final String task;
    private final Map<TableName, Path> tables = new LinkedHashMap<>();
    private final Map<String, ColumnFamilyDescriptor> families = new LinkedHashMap<>();
    private StoreFileWriter writer;
    private long cells;
    private int files;

    /** {@code task}: recorded in each file's info (who wrote it), or null. */
    public BulkHFiles(Configuration conf, Connection connection, Path dir, String task) throws IOException {
        this.conf = conf;
        this.connection = connection;
        this.dir = dir;
        this.task = task;
        this.fs = dir.getFileSystem(conf);
        if (fs.exists(dir)) {
            fs.delete(dir, true);
        }
    }

    /** Closes the current file and starts one of {@code table}'s {@code family}. */
    public void newFile(TableName table, byte[] family) throws IOException {
        closeWriter();
        ColumnFamilyDescriptor descriptor = families.get(table + "/" + Bytes.toStringBinary(family));
        if (descriptor == null) {
            try (Admin admin = connection.getAdmin()) {
                descriptor = admin.getDescriptor(table).getColumnFamily(family);
            }
            if (descriptor == null) {
                throw new IOException(table + ": no family " + Bytes.toString(family));
            }
            families.put(table + "/" + Bytes.toStringBinary(family), descriptor);
        }
        HFileContext context = new HFileContextBuilder()
                .withCompression(descriptor.getCompressionType())
                .withDataBlockEncoding(descriptor.getDataBlockEncoding())
                .withBlockSize(descriptor.getBlocksize())
                .withChecksumType(StoreUtils.getChecksumType(conf))
                .withBytesPerCheckSum(StoreUtils.getBytesPerChecksum(conf))
                .withIncludesTags(HFile.getFormatVersion(conf) >= 3)
                .withColumnFamily(family)
                .withTableName(table.getName())
                .build();
        Path tableDir = tables.computeIfAbsent(table, t -> new Path(dir, Integer.toString(tables.size())));
        writer = new StoreFileWriter.Builder(conf, CacheConfig.DISABLED, fs).withOutputDir(new Path(tableDir, Bytes.toString(family)))
                .withBloomType(descriptor.getBloomFilterType()).withFileContext(context).build();
        files++;
    }

    /** Appends a cell to the current file; cells come in {@code CellComparator} order within a file. */
    public void append(Cell cell) throws IOException {
        if (writer == null) {
            throw new IllegalStateException("append before newFile");
        }
        writer.append(cell);
        cells++;
    }

    public long cells() {
        return cells;
    }

    public int files() {
        return files;
    }

    /** Closes the files and bulk-loads them, table by table; throws when a table's load adopts no file. */
    public void load() throws IOException {
        closeWriter();
        if (tables.isEmpty()) {
            return;
        }
        Configuration c = new Configuration(conf);
        c.setBoolean(BulkLoadHFiles.ASSIGN_SEQ_IDS, true);
        BulkLoadHFiles loader = BulkLoadHFiles.create(c);
        for (Map.Entry<TableName, Path> t : tables.entrySet()) {
            if (loader.bulkLoad(t.getKey(), t.getValue()).isEmpty()) {
                throw new IOException("bulk load into " + t.getKey() + " loaded no file from " + t.getValue());
            }
        }
    }

    private void closeWriter() throws IOException {
        if (writer == null) {
            return;
        }
        writer.appendFileInfo(HStoreFile.BULKLOAD_TIME_KEY, Bytes.toBytes(System.currentTimeMillis()));
        if (task != null) {
            writer.appendFileInfo(HStoreFile.BULKLOAD_TASK_KEY, Bytes.toBytes(task));
        }
        // Not a major-compaction result: a file may hold delete markers that must meet the cells they mask.
        writer.appendFileInfo(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendFileInfo(HStoreFile.EXCLUDE_FROM_MINOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendTrackedTimestampsToMetadata();
        writer.close();
        writer = null;
    }

    /** Closes the open file and removes the directory. */
    @Override
    public void close() throws IOException {
        try {
            closeWriter();
        } finally {
            fs.delete(dir, true);
        }
    }
}
