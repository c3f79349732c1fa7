package io.adreport.schema.hbase;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;

/**
 * An asynchronous HBase client for the reads whose latency is the answer's: the report API's
 * fixed series (a few rows) and day marks (read beside its counters).
 *
 * <p>Why a second client: the blocking {@code Table} scanner hands every scan RPC to the
 * connection's shared pool and waits for it there, and the report hands its read to the read
 * pool before that, so a 48-row series crossed two thread pools on its way to the region server
 * and back. The asynchronous client writes the request from the calling thread and completes it
 * on the RPC client's event loop: the request thread waits once, for the answer. Measured in the
 * same run (docs/BENCHMARKS.md): the same 48-row skip-scan took 0.40 ms p50 by
 * {@code AsyncTable.scanAll} against 0.64 ms by the {@code Table} scanner, before the pool hop.
 * The bid path's profile Get was tried through it twice and kept on the blocking client: no gain
 * beyond the benchmark's spread on the mini cluster
 * (docs/benchmarks/2026-12-06-serving-check-async-get.md), and none in the API's CPU per check on
 * the multi-host cluster, where the reader thread's CPU moved onto the request thread and the
 * event loop unchanged in sum (docs/benchmarks/2026-12-07-serving-check-async-on-the-cluster.md).
 * (The 1.5 s check seen in the first trial on the cluster end-to-end was the API key's refresh,
 * not this client: docs/benchmarks/2026-12-06-serving-http-floor-and-key-refresh.md.)
 *
 * <p>The connection is opened on the first read (most API processes serve series, but tests and
 * tools that build an API without ever reading a series should not open one) from the blocking
 * connection's configuration, so it reaches the same cluster with the same settings, and closed
 * with the API.
 */
public final class AsyncReads implements Closeable {
    private final Connection connection;
    private final Duration scanTimeout;
    private AsyncConnection async;
    private boolean closed;

    /** @param scanTimeout operation and scan timeout of {@link #scanAll} */
    public AsyncReads(Connection connection, Duration scanTimeout) {
        this.connection = connection;
        this.scanTimeout = scanTimeout;
    }

    /** All rows of {@code scan} (bounded by its limit), read by one asynchronous scan. */
    public CompletableFuture<List<Result>> scanAll(TableName table, Scan scan) {
        try {
            return connection().getTableBuilder(table)
                    .setOperationTimeout(scanTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .setScanTimeout(scanTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .build().scanAll(scan);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized AsyncConnection connection() throws IOException {
        if (closed) {
            throw new IOException("the service is stopped");
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
