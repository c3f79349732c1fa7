package io.adreport.schema.meta;

import io.adreport.schema.hbase.DeadlineReads;
import io.adreport.schema.hbase.TimedTables;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Delete;
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

    /** Deadline-bound meta reads, shared by every store of the process: 4 threads, 256 waiting. */
    private static final DeadlineReads READS = new DeadlineReads("adreport-meta-read", 4, 256, new DeadlineReads.Wording(
            "meta table busy: too many reads already waiting for HBase", "meta table did not answer within ",
            "interrupted while reading the meta table"));

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

    /** Deletes cell {@code q} of {@code row} if it holds {@code expected}; whether it did. */
    boolean deleteIfEquals(byte[] row, byte[] q, byte[] expected) {
        try (Table t = table()) {
            return t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(F, q, expected).build(new Delete(row).addColumns(F, q)))
                    .isSuccess();
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
     * timeout ({@link DeadlineReads}: HBase's own operation timeout does not cover a caller parked
     * on the connection's region-lookup lock), 503 upstream. Without a timeout the read runs on
     * the caller's thread.
     */
    <T> T withDeadline(Callable<T> read) {
        try {
            if (operationTimeout == null) {
                return read.call();
            }
            return READS.call(read, operationTimeout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    /** The answer of {@code f}, waited for until {@code deadlineNanos} ({@link System#nanoTime}). */
    <T> T await(Future<T> f, long deadlineNanos) {
        try {
            return READS.await(f, deadlineNanos, operationTimeout == null ? Duration.ofDays(1) : operationTimeout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Table table() throws IOException {
        if (operationTimeout != null) {
            return TimedTables.open(connection, layout.metaTable(), operationTimeout, operationTimeout);
        }
        return connection.getTable(layout.metaTable());
    }
}
