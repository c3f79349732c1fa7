package io.adreport.report.query;

import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * Sorted access to one ranked list of a top-N merge ({@link ThresholdMerge}): a reconciled day's
 * or month's entries for one metric (and tenant), read by an open scanner over the published
 * generation, batch after batch, values descending. {@link #last} is the last value read (the
 * bound of every entry not read yet), {@link #done} set once the list is exhausted.
 * One merge's thread at a time.
 */
final class RankedList {
    final RankedPeriods.Period period;
    private final TopNReads reads;
    private final Rollup rollup;
    private final byte[] prefix;
    private final KeyRange range;
    private ResultScanner scanner;
    private Table table;
    long last = Long.MAX_VALUE;
    boolean done;

    RankedList(TopNReads reads, Rollup rollup, RankedPeriods.Period period, String metric, String tenant) {
        this.reads = reads;
        this.rollup = rollup;
        this.period = period;
        this.range = period.month() == null
                ? RankedIndexCodec.listRange(rollup, period.first(), period.generation(), metric, tenant)
                : RankedIndexCodec.monthListRange(rollup, period.month(), period.generation(), metric, tenant);
        this.prefix = range.start();
    }

    List<RankedIndexCodec.Entry> next(int n) throws IOException {
        if (scanner == null) {
            table = reads.connection().getTable(reads.layout().rankedIndexTable());
            scanner = table.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop())
                    .setCaching(Math.min(n, 10_000)).addFamily(TableLayout.RANKED_FAMILY));
        }
        Result[] rs = scanner.next(n);
        List<RankedIndexCodec.Entry> out = new ArrayList<>(rs.length);
        for (Result r : rs) {
            RankedIndexCodec.Entry e = RankedIndexCodec.parseEntry(rollup, prefix, r.getRow());
            out.add(e);
            last = e.value();
        }
        reads.listEntriesRead().add(rs.length);
        if (rs.length < n) {
            done = true;
        }
        return out;
    }

    void close() {
        try {
            if (scanner != null) {
                scanner.close();
            }
            if (table != null) {
                table.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
