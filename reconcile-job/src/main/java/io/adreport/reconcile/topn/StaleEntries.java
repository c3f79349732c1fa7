package io.adreport.reconcile.topn;

import io.adreport.schema.hbase.Batches;
import io.adreport.schema.hbase.BulkHFiles;
import io.adreport.schema.hbase.BulkStaging;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;

/**
 * Deletes superseded ranked-index entries: every row in the given key ranges (a generation of a
 * day's or a month's lists, per rollup), as HBase has no range delete; keys only are scanned.
 * A re-run of a 1M-event day supersedes ~1.4M entries, the pass's index phase.
 *
 * <p><b>Two write paths, by how many rows a call deletes</b> (the reconciler's
 * {@code reconcile.index.bulk.min.entries} = N, as the reduce tasks choose for the entries they
 * write). The first N keys are held; a call that ends with fewer sends one Delete per row by
 * {@link Batches} of {@link #BATCH}. At the N-th, the held keys and every later one become
 * DeleteFamily markers in HFiles ({@link BulkHFiles}; keys come in scan order, one file per range,
 * the held ones sorted into a file of their own), bulk-loaded at the end of the call: the region
 * server adopts the markers instead of inserting 1.4M tombstones into its MemStore and flushing
 * them. One Delete per row through {@link Table#batch} took 6.9–9.1 s for 1.4M entries on 2 cores
 * (2026-12-05), against 8.3–12.4 s through a {@code BufferedMutator}; sweeping the rollups' ranges
 * concurrently did not pay (the region server's delete path is the bound). The markers carry the
 * time of the call on HBase's clock: superseded generations are never written again (generations
 * only grow), so nothing written later can fall under them.
 *
 * <p>Durability: the Deletes skip the write-ahead log ({@link Durability#SKIP_WAL}), and a loaded
 * file has none to skip. They are garbage collection, not data: should a region server die before
 * it flushes them, the superseded entries reappear, unread (readers read only the published
 * generation) until the next publish of the day or month sweeps every generation below it again.
 * Leftovers of a generation about to be written ({@link #deleteLogged}) always go as Deletes
 * through the WAL: they must not come back, and entries written over them later must win.
 *
 * <p>Failure: the first range that fails fails the call; what was deleted stays deleted, which is
 * harmless for the same reason. Holds no state between calls.
 */
final class StaleEntries {
    private static final int SCAN_CACHING = 1000;
    /** Deletes per {@link Table#batch} call. */
    private static final int BATCH = 2000;
    private static final String WHAT = "superseded ranked-index entries";

    private final Connection connection;
    private final TableName table;
    private final int bulkMinRows;

    /** {@code bulkMinRows}: rows of one call from which they are deleted by bulk-loaded markers (0 = always, -1 = never). */
    StaleEntries(Connection connection, TableName table, int bulkMinRows) {
        this.connection = connection;
        this.table = table;
        this.bulkMinRows = bulkMinRows;
    }

    /** Deletes every row of {@code ranges}, superseded generations (without the WAL); returns how many. */
    long delete(List<KeyRange> ranges) throws IOException {
        return new Sweep(Durability.SKIP_WAL, bulkMinRows).run(ranges);
    }

    /**
     * Deletes every row of {@code ranges} through the WAL: leftovers of a generation about to be
     * written and published, which must not come back with a region server's recovery.
     */
    long deleteLogged(List<KeyRange> ranges) throws IOException {
        return new Sweep(Durability.USE_DEFAULT, -1).run(ranges);
    }

    /** One call's deletes: held keys until it decides, then Deletes or marker files. */
    private final class Sweep {
        private final Durability durability;
        private final int bulkMin;
        private final List<byte[]> held = new ArrayList<>();
        private BulkHFiles files;
        private long timestamp;
        private boolean needFile;

        Sweep(Durability durability, int bulkMin) {
            this.durability = durability;
            this.bulkMin = bulkMin;
        }

        long run(List<KeyRange> ranges) throws IOException {
            long n = 0;
            try (Table t = connection.getTable(table)) {
                for (KeyRange range : ranges) {
                    n += sweep(t, range);
                }
                if (files == null) {
                    List<Delete> batch = new ArrayList<>(Math.min(BATCH, held.size()));
                    for (byte[] row : held) {
                        batch.add(new Delete(row).setDurability(durability));
                        if (batch.size() == BATCH) {
                            Batches.send(t, batch, WHAT);
                        }
                    }
                    Batches.send(t, batch, WHAT);
                } else {
                    files.load();
                }
            } finally {
                if (files != null) {
                    files.close(); // after a load only empty directories are left
                }
            }
            return n;
        }

        private long sweep(Table t, KeyRange range) throws IOException {
            Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(SCAN_CACHING)
                    .setCacheBlocks(false).setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()));
            long n = 0;
            needFile = true; // a range's keys come in scan order: a file of their own
            try (ResultScanner rs = t.getScanner(scan)) {
                for (Result row : rs) {
                    n++;
                    if (files == null) {
                        held.add(row.getRow());
                        if (BulkHFiles.reached(bulkMin, held.size())) {
                            startFiles();
                        }
                        continue;
                    }
                    if (needFile) {
                        files.newFile(table, TableLayout.RANKED_FAMILY);
                        needFile = false;
                    }
                    files.append(marker(row.getRow()));
                }
            }
            return n;
        }

        /** Switches to marker files: the held keys, sorted, become the first file. */
        private void startFiles() throws IOException {
            Configuration conf = connection.getConfiguration();
            files = new BulkHFiles(conf, connection, BulkStaging.fresh(conf, "adreport-index-deletes"), null);
            timestamp = EnvironmentEdgeManager.currentTime();
            held.sort(Bytes.BYTES_COMPARATOR);
            files.newFile(table, TableLayout.RANKED_FAMILY);
            for (byte[] row : held) {
                files.append(marker(row));
            }
            held.clear();
            needFile = true; // the rest of the current range, in scan order
        }

        private KeyValue marker(byte[] row) {
            return new KeyValue(row, TableLayout.RANKED_FAMILY, null, timestamp, KeyValue.Type.DeleteFamily);
        }
    }
}
