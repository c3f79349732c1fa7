package io.adreport.reconcile.topn;

import io.adreport.schema.hbase.Batches;
import io.adreport.schema.rowkey.KeyRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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

/**
 * Deletes superseded ranked-index entries: every row in the given key ranges (a generation of a
 * day's or a month's lists, per rollup), one Delete per row, as HBase has no range delete; keys
 * only are scanned, and the Deletes go out by {@link Batches} of {@link #BATCH}. A re-run of a
 * 1M-event day supersedes ~1.4M entries, the pass's index phase: 6.9–9.1 s on 2 cores, against
 * 8.3–12.4 s through a {@code BufferedMutator} on the same data and minutes. Sweeping the
 * rollups' ranges concurrently (4 threads) was measured and did not pay (11.2–14.2 s against
 * 10.7–14.1 s, with the mutator): the region server's delete path is the bound.
 *
 * <p>Durability: the Deletes skip the write-ahead log ({@link Durability#SKIP_WAL}). They are
 * garbage collection, not data: should a region server die before it flushes them, the superseded
 * entries reappear, unread (readers read only the published generation) until the next publish
 * of the day or month sweeps every generation below it again. Logging 1.4M tombstones that need
 * no recovery is the WAL's share of the region server's delete path.
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

    StaleEntries(Connection connection, TableName table) {
        this.connection = connection;
        this.table = table;
    }

    /** Deletes every row of {@code ranges}, superseded generations (without the WAL); returns how many. */
    long delete(List<KeyRange> ranges) throws IOException {
        return delete(ranges, Durability.SKIP_WAL);
    }

    /**
     * Deletes every row of {@code ranges} through the WAL: leftovers of a generation about to be
     * written and published, which must not come back with a region server's recovery.
     */
    long deleteLogged(List<KeyRange> ranges) throws IOException {
        return delete(ranges, Durability.USE_DEFAULT);
    }

    private long delete(List<KeyRange> ranges, Durability durability) throws IOException {
        long n = 0;
        for (KeyRange range : ranges) {
            n += sweep(range, durability);
        }
        return n;
    }

    private long sweep(KeyRange range, Durability durability) throws IOException {
        Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(SCAN_CACHING)
                .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()));
        long n = 0;
        List<Delete> pending = new ArrayList<>(BATCH);
        try (Table t = connection.getTable(table);
             ResultScanner rs = t.getScanner(scan)) {
            for (Result row : rs) {
                pending.add(new Delete(row.getRow()).setDurability(durability));
                n++;
                if (pending.size() == BATCH) {
                    Batches.send(t, pending, WHAT);
                }
            }
            Batches.send(t, pending, WHAT);
        }
        return n;
    }
}
