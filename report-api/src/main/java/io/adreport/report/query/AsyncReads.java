package io.adreport.report.query;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;

/**
 * The report API's asynchronous HBase client, for the reads whose latency is the answer's: a
 * fixed series' few rows, and every report's day marks (read beside its counters).
 *
 * <p>Why a second client: the blocking {@code Table} scanner hands every scan RPC to the
 * connection's shared pool and waits for it there, and the report hands its read to the read
 * pool before that, so a 48-row series crossed two thread pools on its way to the region server
 * and back. The asynchronous client writes the request from the calling thread and completes it
 * on the RPC client's event loop: the request thread waits once, for the answer. Measured in the
 * same run (docs/BENCHMARKS.md): the same 48-row skip-scan took 0.40 ms p50 by
 * {@code AsyncTable.scanAll} against 0.64 ms by the {@code Table} scanner, before the pool hop.
 *
 * <p>The connection is opened on the first read (most API processes serve series, but tests and
 * tools that build an API without ever reading a series should not open one) from the blocking
 * connection's configuration, so it reaches the same cluster with the same settings, and closed
 * with the API.
 */
public final class AsyncReads implements Closeable {
    private final Connection connection;
    private final Duration timeout;
    private AsyncConnection async;
    private boolean closed;

    public AsyncReads(Connection connection, Duration timeout) {
        this.connection = connection;
        this.timeout = timeout;
    }

    /** All rows of {@code scan} (bounded by its limit), read by one asynchronous scan. */
    public CompletableFuture<List<Result>> scanAll(TableName table, Scan scan) {
        try {
            return connection().getTableBuilder(table)
                    .setOperationTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .setScanTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .build().scanAll(scan);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized AsyncConnection connection() throws IOException {
        if (closed) {
            throw new IOException("the report API is stopped");
        }
        if (async == null) {
            try {
                async = ConnectionFactory.createAsyncConnection(connection.getConfiguration()).get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting", e);
            }
        }
        return async;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        if (async != null) {
            async.close();
            async = null;
        }
    }
}
