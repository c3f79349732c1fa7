package io.adreport.benchmarks;

import io.adreport.schema.hbase.HBaseEndpoint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * Brings a running local stack's tables to the state a 03:00 nightly run finds yesterday's rows
 * in: {@code SettleTables DATA_DIR [NAMESPACE] [MAX_SECONDS]} flushes every table of the namespace
 * (default {@code ads}) to HFiles, as the region server's periodic flush does within
 * {@code hbase.regionserver.optionalcacheflushinterval} (five minutes in the local stack) of an
 * edit, then waits, up to MAX_SECONDS (default 600), until no compaction those flushes started is
 * running. A pass right after ingest instead scans the memstores (every version of every writer
 * cell the live flushes wrote) while the region server flushes and compacts beside it.
 */
public final class SettleTables {
    private SettleTables() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: SettleTables DATA_DIR [NAMESPACE] [MAX_SECONDS]");
            System.exit(2);
        }
        String namespace = args.length > 1 ? args[1] : "ads";
        long maxMillis = (args.length > 2 ? Long.parseLong(args[2]) : 600) * 1000;
        long start = System.nanoTime();
        try (Connection c = ConnectionFactory.createConnection(HBaseEndpoint.configuration(Path.of(args[0])));
             Admin admin = c.getAdmin()) {
            List<TableName> tables = List.of(admin.listTableNamesByNamespace(namespace));
            for (TableName t : tables) {
                admin.flush(t);
            }
            long flushed = System.nanoTime();
            List<TableName> busy = new ArrayList<>(tables);
            while (!busy.isEmpty() && (System.nanoTime() - flushed) / 1_000_000 < maxMillis) {
                busy.removeIf(t -> {
                    try {
                        return admin.getCompactionState(t) == CompactionState.NONE;
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                if (!busy.isEmpty()) {
                    Thread.sleep(1000);
                }
            }
            System.err.printf("settled %d tables of %s: flushed in %.1f s, compactions %s after %.1f s more%n", tables.size(), namespace,
                    (flushed - start) / 1e9, busy.isEmpty() ? "ended" : "still running in " + busy,
                    (System.nanoTime() - flushed) / 1e9);
        }
    }
}
