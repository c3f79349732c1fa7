package io.adreport.aggregator;

import java.io.IOException;
import java.time.Duration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;

/**
 * Where the aggregator gets its {@link Table}s: one lightweight Table per use over the one
 * shared {@link Connection}, with an operation timeout so that an unreachable HBase turns into
 * a timely 503 rather than a hung request. Also the seam for fault injection in tests (a
 * wrapping source that fails or delays some calls), never a mock of HBase.
 */
@FunctionalInterface
public interface TableSource {
    Table open(TableName name) throws IOException;

    /** Tables of {@code connection} whose every operation gives up after {@code timeout}. */
    static TableSource of(Connection connection, Duration timeout) {
        int ms = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        return name -> connection.getTableBuilder(name, null)
                .setOperationTimeout(ms)
                .setRpcTimeout(Math.min(ms, 60_000))
                .build();
    }
}
