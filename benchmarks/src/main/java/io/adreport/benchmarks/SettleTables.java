package io.adreport.benchmarks;

import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.hbase.HBaseEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * in: {@code SettleTables DATA_DIR [MAX_SECONDS] [NAMESPACE]} flushes every table of the namespace
 * (default: the default cube's, as the local stack uses) to HFiles, as the region server's periodic flush does within
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
            System.err.println("usage: SettleTables DATA_DIR [MAX_SECONDS] [NAMESPACE]");
            System.exit(2);
        }
        long maxMillis = (args.length > 1 ? Long.parseLong(args[1]) : 600) * 1000;
        String namespace = args.length > 2 ? args[2] : CubeLoader.defaultCube().name();
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
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
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
