package io.adreport.aggregator;

import io.adreport.schema.hbase.TimedTables;
import java.io.IOException;
import java.time.Duration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;

/**
 * Where the aggregator gets its {@link Table}s: one lightweight Table per use over the one
 * shared {@link Connection} and one shared thread pool ({@link TimedTables}), with an operation
 * timeout so that an unreachable HBase turns into a timely 503 rather than a hung request. Also
 * the seam for fault injection in tests (a wrapping source that fails or delays some calls),
 * never a mock of HBase.
 */
@FunctionalInterface
public interface TableSource {
    Table open(TableName name) throws IOException;

    /**
     * A table for the counter flush's {@code Table.batch} calls. A flush is off the request path
     * and its calls are large (up to {@code flush.batch.rows} Increments), so it gets its own,
     * longer timeout: a call that times out leaves its increments uncertain (never resent, left
     * to the nightly job), which under a transient overload is worse than waiting — the full
     * buffer pushes back on ingest meanwhile. By default the same as {@link #open}.
     */
    default Table openForFlush(TableName name) throws IOException {
        return open(name);
    }

    /** Tables of {@code connection} whose every operation gives up after {@code timeout}. */
    static TableSource of(Connection connection, Duration timeout) {
        return of(connection, timeout, timeout);
    }

    /** As {@link #of(Connection, Duration)}, with {@code flushTimeout} for {@link #openForFlush}. */
    static TableSource of(Connection connection, Duration timeout, Duration flushTimeout) {
        return new TableSource() {
            @Override
            public Table open(TableName name) {
                return build(connection, name, timeout);
            }

            @Override
            public Table openForFlush(TableName name) {
                return build(connection, name, flushTimeout);
            }
        };
    }

    private static Table build(Connection connection, TableName name, Duration timeout) {
        return TimedTables.open(connection, name, timeout, Duration.ofMillis(Math.min(timeout.toMillis(), 60_000)));
    }
}
