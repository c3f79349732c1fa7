package io.adreport.aggregator;

import io.adreport.schema.metrics.Metrics;
import java.util.List;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Row;

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

    /** Counts a batch about to be sent: one row per mutation, its cells. */
    public void sent(List<? extends Row> batch) {
        long n = 0;
        long c = 0;
        for (Row r : batch) {
            if (r instanceof Mutation m) {
                n++;
                c += m.size();
            }
        }
        rows.add(n);
        cells.add(c);
    }
}
