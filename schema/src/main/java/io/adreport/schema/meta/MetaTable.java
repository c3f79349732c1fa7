package io.adreport.schema.meta;

import io.adreport.schema.hbase.TimedTables;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Row access to the meta table, shared by its stores ({@link DayStatusStore}, {@link HeartbeatStore},
 * {@link ApiKeyStore}): family {@code m}, text qualifiers, times as 8-byte epoch millis. Thread-safe;
 * one {@link Table} per call over the shared {@link Connection}.
 */
final class MetaTable {
    static final byte[] F = TableLayout.META_FAMILY;

    private final Connection connection;
    private final TableLayout layout;
    private final Clock clock;
    private final Duration operationTimeout;

    /**
     * @param operationTimeout bounds every call (null: the connection's default, which with HBase's
     *                         retries can be many minutes). A server that answers requests (the
     *                         report API's key lookups) needs the bound: without it a request waits
     *                         out an HBase outage instead of failing fast with 503.
     */
    MetaTable(Connection connection, TableLayout layout, Clock clock, Duration operationTimeout) {
        this.connection = connection;
        this.layout = layout;
        this.clock = clock;
        this.operationTimeout = operationTimeout;
    }

    TableName name() {
        return layout.metaTable();
    }

    long millis() {
        return clock.millis();
    }

    Duration operationTimeout() {
        return operationTimeout;
    }

    void put(Put p) {
        try (Table t = table()) {
            t.put(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Result get(Get g) throws IOException {
        try (Table t = table()) {
            return t.get(g);
        }
    }

    void scan(Scan scan, Consumer<Result> each) {
        try (Table t = table(); ResultScanner rs = t.getScanner(scan)) {
            for (Result r : rs) {
                each.accept(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Instant instant(byte[] v) {
        return v == null || v.length != 8 ? null : Instant.ofEpochMilli(Bytes.toLong(v));
    }

    /**
     * Runs a read of a request path under a hard deadline when this table has an operation
     * timeout. HBase's own operation timeout does not cover a caller parked on the connection's
     * region-lookup lock while another thread waits out a meta lookup (minutes during an outage);
     * so the read runs on a small bounded pool and the caller stops waiting at the deadline
     * (503 upstream). A full pool refuses at once rather than queueing callers behind a dead HBase.
     * Without a timeout the read runs on the caller's thread.
     */
    <T> T withDeadline(Callable<T> read) {
        if (operationTimeout == null) {
            try {
                return read.call();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (Exception e) {
                throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
            }
        }
        Future<T> f;
        try {
            f = DeadlinePool.POOL.submit(read);
        } catch (RejectedExecutionException e) {
            throw new UncheckedIOException(new IOException("meta table busy: too many reads already waiting for HBase"));
        }
        return await(f, System.nanoTime() + operationTimeout.toNanos());
    }

    /** The answer of {@code f}, waited for until {@code deadlineNanos} ({@link System#nanoTime}). */
    <T> T await(Future<T> f, long deadlineNanos) {
        try {
            return f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new UncheckedIOException(new IOException("meta table did not answer within " + operationTimeout.toMillis() + " ms"));
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw c instanceof RuntimeException r ? r : new IllegalStateException(c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while reading the meta table"));
        }
    }

    private Table table() throws IOException {
        if (operationTimeout != null) {
            return TimedTables.open(connection, layout.metaTable(), operationTimeout, operationTimeout);
        }
        return connection.getTable(layout.metaTable());
    }

    /** Threads for deadline-bound meta reads, shared by every store of the process; daemon, bounded. */
    private static final class DeadlinePool {
        static final ExecutorService POOL = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(256), r -> {
            Thread t = new Thread(r, "adreport-meta-read");
            t.setDaemon(true);
            return t;
        });
    }
}
