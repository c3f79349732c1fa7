package io.adreport.aggregator;

import io.adreport.schema.metrics.Metrics;
import java.util.List;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;

/**
 * The rows and cells the aggregator sends to one table, whatever the path (raw puts, device
 * views, duplicate marks, spend, counter flushes): {@code adreport_store_rows_written_total} and
 * {@code adreport_store_cells_written_total}, labelled by the table's role. Counted when a batch is
 * sent, failed or not: it measures the write amplification per event, not what is stored.
 */
public final class WriteTally {
    private final Metrics.Counter rows;
    private final Metrics.Counter cells;

    private WriteTally(Metrics registry, String table) {
        this.rows = registry.counter("adreport_store_rows_written_total",
                "Row mutations sent to HBase, by table role (raw, profiles, spend, counters)", "table", table);
        this.cells = registry.counter("adreport_store_cells_written_total",
                "Cells sent to HBase in row mutations, by table role (raw, profiles, spend, counters)", "table", table);
    }

    /** The tally of the table whose role is {@code table} (one series per registry and role). */
    public static WriteTally of(Metrics registry, String table) {
        return new WriteTally(registry, table);
    }

    /** Counts a batch about to be sent: one row per mutation (a conditional one's row mutation too), its cells. */
    public void sent(List<? extends Row> batch) {
        long n = 0;
        long c = 0;
        for (Row r : batch) {
            Row w = r instanceof CheckAndMutate cam ? cam.getAction() : r;
            if (w instanceof Mutation || w instanceof RowMutations) {
                n++;
                c += cells(w);
            }
        }
        rows.add(n);
        cells.add(c);
    }

    /**
     * The cells of one row operation: a mutation's, a row mutation's summed, a conditional one's
     * action's (spend: an Increment and a Put of one row); 0 for a read.
     */
    public static int cells(Row r) {
        if (r instanceof CheckAndMutate cam) {
            r = cam.getAction();
        }
        if (r instanceof Mutation m) {
            return m.size();
        }
        if (r instanceof RowMutations rm) {
            int c = 0;
            for (Mutation m : rm.getMutations()) {
                c += m.size();
            }
            return c;
        }
        return 0;
    }
}
