package io.adreport.schema.spend;

import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Reads one campaign's live spend ({@link SpendRows}) with one short prefix scan over its shard
 * rows: lifetime, UTC days, the quarters of a window, and each shard's unflushed bound.
 */
public final class SpendStore {
    private final Connection connection;
    private final TableLayout layout;

    public SpendStore(Connection connection, TableLayout layout) {
        this.connection = connection;
        this.layout = layout;
    }

    /** One shard's row: what it flushed in total, its bound and when it last flushed. */
    public record Shard(String id, long lifetimeMicros, long boundMicros, long flushedAtMillis) {
    }

    /**
     * The flushed spend of one campaign summed over shards.
     *
     * @param shards   each shard's row
     * @param days     spend by UTC day (every day still in the table)
     * @param quarters spend by quarter start (epoch millis), only the quarters asked for
     */
    public record Snapshot(List<Shard> shards, Map<LocalDate, Long> days, Map<Long, Long> quarters) {
        public long lifetimeMicros() {
            return shards.stream().mapToLong(Shard::lifetimeMicros).sum();
        }

        public long boundMicros() {
            return shards.stream().mapToLong(Shard::boundMicros).sum();
        }

        /** Spend of the quarters in {@code [fromMillis, toMillis)}. */
        public long quarters(long fromMillis, long toMillis) {
            long sum = 0;
            for (Map.Entry<Long, Long> e : quarters.entrySet()) {
                if (e.getKey() >= fromMillis && e.getKey() < toMillis) {
                    sum += e.getValue();
                }
            }
            return sum;
        }
    }

    /** Reads {@code advertiser/campaign} with the quarters of {@code [fromMillis, toMillis)}. */
    public Snapshot read(String advertiser, String campaign, long fromMillis, long toMillis) throws IOException {
        byte[] qFrom = SpendRows.quarterQualifier(SpendRows.quarterStart(fromMillis));
        byte[] qTo = SpendRows.quarterQualifier(SpendRows.quarterStart(toMillis + SpendRows.QUARTER_MILLIS - 1));
        Scan scan = new Scan().addFamily(SpendRows.FAMILY).setCaching(64)
                .setStartStopRowForPrefixScan(SpendRows.prefix(advertiser, campaign))
                .setFilter(new FilterList(FilterList.Operator.MUST_PASS_ONE,
                        new ColumnRangeFilter(null, true, new byte[] {SpendRows.QUARTER_PREFIX}, false),
                        new ColumnRangeFilter(qFrom, true, qTo, false)));
        List<Shard> shards = new ArrayList<>();
        Map<LocalDate, Long> days = new TreeMap<>();
        Map<Long, Long> quarters = new TreeMap<>();
        try (Table t = connection.getTable(layout.spendTable()); ResultScanner s = t.getScanner(scan)) {
            for (Result r : s) {
                long lifetime = 0;
                long bound = 0;
                long flushedAt = 0;
                for (Cell c : r.rawCells()) {
                    byte[] q = CellUtil.cloneQualifier(c);
                    long v = Bytes.toLong(c.getValueArray(), c.getValueOffset(), c.getValueLength());
                    if (Bytes.equals(q, SpendRows.LIFETIME)) {
                        lifetime = v;
                    } else if (Bytes.equals(q, SpendRows.BOUND)) {
                        bound = v;
                    } else if (Bytes.equals(q, SpendRows.FLUSHED_AT)) {
                        flushedAt = v;
                    } else if (q.length > 0 && q[0] == SpendRows.DAY_PREFIX) {
                        days.merge(SpendRows.parseDay(q), v, Long::sum);
                    } else if (q.length > 0 && q[0] == SpendRows.QUARTER_PREFIX) {
                        quarters.merge(SpendRows.parseQuarter(q), v, Long::sum);
                    }
                }
                shards.add(new Shard(SpendRows.shard(r.getRow(), advertiser, campaign), lifetime, bound, flushedAt));
            }
        }
        return new Snapshot(shards, days, quarters);
    }
}
