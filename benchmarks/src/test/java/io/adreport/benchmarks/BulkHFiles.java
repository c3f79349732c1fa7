package io.adreport.benchmarks;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.KeyValue;
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
 * Benchmark data loading: cells appended in key order to HFiles of one table and family, then
 * handed to the region servers with {@link BulkLoadHFiles} (the files take the family's Bloom
 * type, encoding, compression and block size, like the reconcile job's bulk corrections). The
 * caller starts a new file ({@link #newFile}) where a region starts, so no file needs splitting,
 * and appends each file's cells sorted (row, then qualifier). One thread owns an instance.
 */
final class BulkHFiles implements Closeable {
    private final Configuration conf;
    private final Connection connection;
    private final TableName table;
    private final byte[] family;
    private final ColumnFamilyDescriptor descriptor;
    private final FileSystem fs;
    private final Path dir;
    private final long timestamp = System.currentTimeMillis();
    private StoreFileWriter writer;
    private long cells;

    BulkHFiles(Configuration conf, Connection connection, TableName table, byte[] family, Path dir) throws IOException {
        this.conf = conf;
        this.connection = connection;
        this.table = table;
        this.family = family;
        this.dir = dir;
        this.fs = dir.getFileSystem(conf);
        try (Admin admin = connection.getAdmin()) {
            this.descriptor = admin.getDescriptor(table).getColumnFamily(family);
        }
        if (fs.exists(dir)) {
            fs.delete(dir, true);
        }
    }

    void newFile() throws IOException {
        closeWriter();
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
        writer = new StoreFileWriter.Builder(conf, CacheConfig.DISABLED, fs).withOutputDir(new Path(dir, Bytes.toString(family)))
                .withBloomType(descriptor.getBloomFilterType()).withFileContext(context).build();
    }

    void put(byte[] row, byte[] qualifier, byte[] value) throws IOException {
        if (writer == null) {
            newFile();
        }
        writer.append(new KeyValue(row, family, qualifier, timestamp, KeyValue.Type.Put, value));
        cells++;
    }

    long cells() {
        return cells;
    }

    /** Closes the files and bulk-loads them. */
    void load() throws IOException {
        closeWriter();
        Configuration c = new Configuration(conf);
        c.setBoolean(BulkLoadHFiles.ASSIGN_SEQ_IDS, true);
        if (BulkLoadHFiles.create(c).bulkLoad(table, dir).isEmpty()) {
            throw new IOException("bulk load into " + table + " loaded no file from " + dir);
        }
    }

    private void closeWriter() throws IOException {
        if (writer == null) {
            return;
        }
        writer.appendFileInfo(HStoreFile.BULKLOAD_TIME_KEY, Bytes.toBytes(System.currentTimeMillis()));
        writer.appendFileInfo(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendFileInfo(HStoreFile.EXCLUDE_FROM_MINOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendTrackedTimestampsToMetadata();
        writer.close();
        writer = null;
    }

    @Override
    public void close() throws IOException {
        try {
            closeWriter();
        } finally {
            fs.delete(dir, true);
        }
    }
}
