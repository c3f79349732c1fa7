package io.adreport.reconcile.topn;

import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import java.io.IOException;
import java.time.LocalDate;
import java.util.List;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Writes the ranked top-N index ({@link RankedIndexCodec}) of one reconciled UTC day, from the
 * day's exact DAY counter rows, once the reconcile job has corrected them. For every rollup that
 * stores DAY rows and has dimensions, every stored metric gets one list of all series and, when
 * the rollup has a tenant, one list per tenant; a series is listed where its day value is
 * positive (the reader bounds an unlisted series' value by the list's last value, or 0).
 *
 * <p><b>Write order (a reader never sees half an index).</b> Per rollup: (1) read the day's
 * pointer, generation g (0 when none); (2) write every entry of generation g+1 through a
 * {@link BufferedMutator} and flush; (3) point the day at g+1; (4) delete generations below g.
 * Readers read the pointer first and only the generation it names, so before (3) they read g,
 * after it g+1, both complete. Generation g itself is kept until the next re-run, so a reader
 * that read the pointer just before (3) still finds its whole list. A crash before (3) leaves
 * unreferenced entries of g+1, which the next run overwrites (same keys) or deletes. Re-running
 * a day (late events) therefore replaces its index: no old entry is read again.
 *
 * <p><b>Concurrency.</b> Called by the {@code Reconciler} under its lock, one day at a time;
 * holds nothing between calls. Memory is bounded by the mutator's write buffer and the scan
 * caching.
 *
 * <p><b>Failure.</b> An HBase error is thrown; the reconciler then leaves the day {@code closing}
 * (it is not marked reconciled) and the next run writes the index again.
 */
public final class RankedIndexWriter {
    private static final byte[] F = TableLayout.RANKED_FAMILY;
    private static final byte[] VALUE = Bytes.toBytes("v");
    private static final byte[] GENERATION = Bytes.toBytes("g");
    private static final int SCAN_CACHING = 1000;

    /** What one day's index write did. */
    public record Written(LocalDate day, long entries, long deleted) {
    }

    private final Connection connection;
    private final TableLayout layout;
    private final RowKeyCodec codec;

    public RankedIndexWriter(Connection connection, TableLayout layout) {
        this.connection = connection;
        this.layout = layout;
        this.codec = new RowKeyCodec(layout.cube());
    }

    /** True when the index can list {@code rollup}: it stores DAY rows and has dimensions. */
    public static boolean indexes(Rollup rollup) {
        return rollup.granularities().contains(Granularity.DAY) && !rollup.dimensions().isEmpty();
    }

    public Written write(LocalDate day) throws IOException {
        long entries = 0;
        long deleted = 0;
        for (Rollup r : layout.cube().rollups()) {
            if (indexes(r)) {
                long gen = generation(r, day) + 1;
                entries += writeEntries(r, day, gen);
                publish(r, day, gen);
                deleted += deleteBelow(r, day, gen - 1);
            }
        }
        return new Written(day, entries, deleted);
    }

    /** The day's published generation, 0 when it has none. */
    long generation(Rollup r, LocalDate day) throws IOException {
        try (Table t = connection.getTable(layout.rankedIndexTable())) {
            Result res = t.get(new Get(RankedIndexCodec.pointerKey(r, day)).addColumn(F, GENERATION));
            byte[] v = res.getValue(F, GENERATION);
            return v == null ? 0 : Bytes.toLong(v);
        }
    }

    private long writeEntries(Rollup r, LocalDate day, long gen) throws IOException {
        List<Metric> metrics = layout.cube().metrics();
        byte[][] qualifiers = new byte[metrics.size()][];
        for (int i = 0; i < qualifiers.length; i++) {
            qualifiers[i] = Bytes.toBytes(metrics.get(i).name());
        }
        long n = 0;
        try (BufferedMutator out = mutator(); Table counters = connection.getTable(layout.counterTable(r))) {
            for (int salt = 0; salt < codec.saltBuckets(); salt++) {
                KeyRange range = codec.counterDayRange(salt, Granularity.DAY, day);
                Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(SCAN_CACHING)
                        .addFamily(TableLayout.COUNTER_FAMILY);
                try (ResultScanner rs = counters.getScanner(scan)) {
                    for (Result row : rs) {
                        CounterKey key = codec.parseCounterKey(row.getRow());
                        for (int i = 0; i < qualifiers.length; i++) {
                            byte[] cell = row.getValue(TableLayout.COUNTER_FAMILY, qualifiers[i]);
                            long v = cell == null || cell.length != 8 ? 0 : Bytes.toLong(cell);
                            if (v <= 0) {
                                continue;
                            }
                            String metric = metrics.get(i).name();
                            out.mutate(entry(r, day, gen, metric, null, v, key.values()));
                            n++;
                            if (r.hasTenant()) {
                                out.mutate(entry(r, day, gen, metric, key.values().get(0), v, key.values()));
                                n++;
                            }
                        }
                    }
                }
            }
            out.flush();
        } catch (RetriesExhaustedWithDetailsException e) {
            throw new IOException("writing the ranked index of " + r.name() + " for " + day + " failed: " + e.getMessage(), e);
        }
        return n;
    }

    private static Put entry(Rollup r, LocalDate day, long gen, String metric, String tenant, long v, List<String> values) {
        return new Put(RankedIndexCodec.entryKey(r, day, gen, metric, tenant, v, values)).addColumn(F, VALUE, Bytes.toBytes(v));
    }

    private void publish(Rollup r, LocalDate day, long gen) throws IOException {
        try (Table t = connection.getTable(layout.rankedIndexTable())) {
            t.put(new Put(RankedIndexCodec.pointerKey(r, day)).addColumn(F, GENERATION, Bytes.toBytes(gen)));
        }
    }

    /** Deletes the day's entries of generations [0, keepFrom). */
    private long deleteBelow(Rollup r, LocalDate day, long keepFrom) throws IOException {
        if (keepFrom <= 0) {
            return 0;
        }
        KeyRange range = RankedIndexCodec.generationsRange(r, day, 0, keepFrom);
        Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(SCAN_CACHING)
                .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()));
        long n = 0;
        try (BufferedMutator out = mutator(); Table t = connection.getTable(layout.rankedIndexTable());
             ResultScanner rs = t.getScanner(scan)) {
            for (Result row : rs) {
                out.mutate(new Delete(row.getRow()));
                n++;
            }
            out.flush();
        }
        return n;
    }

    private BufferedMutator mutator() throws IOException {
        return connection.getBufferedMutator(new BufferedMutatorParams(layout.rankedIndexTable()));
    }
}
