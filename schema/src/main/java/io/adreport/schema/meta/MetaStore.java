package io.adreport.schema.meta;

import io.adreport.schema.hbase.TimedTables;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The meta table: day status (the day-close handshake), drift reports, aggregator heartbeats
 * and acknowledgements, and API key hashes. Rows (family {@code m}):
 * <pre>
 * day/YYYY-MM-DD   status (closing|reconciled), closingAt, reconciledAt (epoch ms), drift (JSON),
 *                  lateAt (epoch ms): an aggregator stored an event of the day while it was closed
 * agg/ID           heartbeat (epoch ms); expiresAt (epoch ms): the instance promises its next
 *                  heartbeat before then, and is not waited for after it (a stopped instance
 *                  sets it to its stop time); instances (4-byte int): the aggregator.instances
 *                  it runs with; ack/YYYY-MM-DD (epoch ms) per day it has closed; live: the
 *                  base URL where it answers live-counts requests
 * key/SHA256HEX    role, createdAt (epoch ms), revokedAt (epoch ms, when revoked)
 * </pre>
 * Thread-safe; one {@link Table} per call over the shared {@link Connection}.
 */
public final class MetaStore {
    private static final byte[] F = TableLayout.META_FAMILY;
    private static final byte[] STATUS = Bytes.toBytes("status");
    private static final byte[] CLOSING_AT = Bytes.toBytes("closingAt");
    private static final byte[] RECONCILED_AT = Bytes.toBytes("reconciledAt");
    private static final byte[] DRIFT = Bytes.toBytes("drift");
    private static final byte[] LATE_AT = Bytes.toBytes("lateAt");
    private static final byte[] HEARTBEAT = Bytes.toBytes("heartbeat");
    private static final byte[] EXPIRES_AT = Bytes.toBytes("expiresAt");
    private static final byte[] INSTANCES = Bytes.toBytes("instances");
    private static final byte[] LIVE_URL = Bytes.toBytes("live");
    private static final byte[] ROLE = Bytes.toBytes("role");
    private static final byte[] CREATED_AT = Bytes.toBytes("createdAt");
    private static final byte[] REVOKED_AT = Bytes.toBytes("revokedAt");
    private static final String ACK = "ack/";

    /** Live days have no row; a day that was ever closed stays closed for live increments. */
    public enum DayStatus { LIVE, CLOSING, RECONCILED }

    /**
     * @param lateSinceClose an event of the day was stored while it was closed, at or after its
     *                       last closing mark: the last recount may have missed it. Compared by
     *                       the cells' server timestamps (one row, one region server clock), so
     *                       the clocks of aggregators and reconcilers do not matter.
     */
    public record DayState(LocalDate day, DayStatus status, Instant closingAt, Instant reconciledAt, String driftJson,
                           boolean lateSinceClose) {
        public DayState(LocalDate day) {
            this(day, DayStatus.LIVE, null, null, null, false);
        }

        public boolean closed() {
            return status != DayStatus.LIVE;
        }

        /** Reconciled, and nothing stored for it since its last close that the recount may have missed. */
        public boolean settled() {
            return status == DayStatus.RECONCILED && !lateSinceClose;
        }
    }

    /**
     * @param expiresAt when the instance's heartbeat lapses by its own declaration (null for rows
     *                  written without one: the reader's liveness window applies)
     * @param instances the aggregator.instances it declared (0: not declared)
     * @param liveUrl   the base URL where it answers live-counts requests ({@code LiveCounts}), or null
     */
    public record AggregatorState(String id, Instant heartbeat, Set<LocalDate> closedDays, Instant expiresAt, int instances,
                                  String liveUrl) {
        public AggregatorState {
            closedDays = Set.copyOf(closedDays);
        }

        /** Without an advertised live-counts address. */
        public AggregatorState(String id, Instant heartbeat, Set<LocalDate> closedDays, Instant expiresAt, int instances) {
            this(id, heartbeat, closedDays, expiresAt, instances, null);
        }

        /**
         * Whether the instance counts as running at {@code now}: before its declared expiry, or,
         * without one, a heartbeat within {@code liveness}.
         */
        public boolean live(Instant now, java.time.Duration liveness) {
            if (heartbeat == null) {
                return false;
            }
            Instant until = expiresAt != null ? expiresAt : heartbeat.plus(liveness);
            return now.isBefore(until);
        }
    }

    public record KeyRecord(String hash, String role, Instant createdAt, Instant revokedAt) {
        public boolean active() {
            return revokedAt == null;
        }
    }

    private final Connection connection;
    private final TableLayout layout;
    private final Clock clock;
    private final Duration operationTimeout;

    public MetaStore(Connection connection, TableLayout layout, Clock clock) {
        this(connection, layout, clock, null);
    }

    /**
     * As {@link #MetaStore(Connection, TableLayout, Clock)}, with every call bounded by
     * {@code operationTimeout} (null: the connection's default, which with HBase's retries can be
     * many minutes). A server that answers requests (the report API's key lookups) needs the bound:
     * without it a request waits out an HBase outage instead of failing fast with 503.
     */
    public MetaStore(Connection connection, TableLayout layout, Clock clock, Duration operationTimeout) {
        this.connection = connection;
        this.layout = layout;
        this.clock = clock;
        this.operationTimeout = operationTimeout;
    }

    // --- days ------------------------------------------------------------------------------

    /** Marks {@code day} closing (also when it was reconciled before: a re-run). */
    public void markClosing(LocalDate day) {
        Put p = new Put(dayRow(day));
        p.addColumn(F, STATUS, Bytes.toBytes("closing"));
        p.addColumn(F, CLOSING_AT, Bytes.toBytes(clock.millis()));
        put(p);
    }

    /**
     * Records that an event of closed {@code day} was stored now (after the event's raw row was
     * written): if this is at or after the day's last closing mark, the day is reconciled again.
     */
    public void markLate(LocalDate day) {
        Put p = new Put(dayRow(day));
        p.addColumn(F, LATE_AT, Bytes.toBytes(clock.millis()));
        put(p);
    }

    public void markReconciled(LocalDate day, String driftJson) {
        Put p = new Put(dayRow(day));
        p.addColumn(F, STATUS, Bytes.toBytes("reconciled"));
        p.addColumn(F, RECONCILED_AT, Bytes.toBytes(clock.millis()));
        p.addColumn(F, DRIFT, Bytes.toBytes(driftJson));
        put(p);
    }

    public DayState day(LocalDate day) {
        return withDeadline(() -> {
            try (Table t = table()) {
                return toDay(day, t.get(new Get(dayRow(day))));
            }
        });
    }

    /** States of the days in [from, to], live ones included. */
    public Map<LocalDate, DayState> days(LocalDate from, LocalDate toInclusive) {
        return withDeadline(() -> readDays(from, toInclusive));
    }

    /**
     * {@link #days} started now through an asynchronous client's scan, its answer taken later: a
     * report reads the day states while it reads its counters instead of after them (one meta
     * round trip off the request's path), and no thread of this process waits for HBase until
     * the answer is taken (so no pool is needed for the deadline either: the wait is bounded by
     * this store's operation timeout). The states are those of the moment the read ran, as with
     * {@link #days}.
     */
    public java.util.function.Supplier<Map<LocalDate, DayState>> daysLater(LocalDate from, LocalDate toInclusive, AsyncScan scan) {
        java.util.concurrent.CompletableFuture<java.util.List<Result>> rows = scan.scanAll(layout.metaTable(), dayScan(from, toInclusive));
        long deadline = System.nanoTime() + (operationTimeout == null ? Duration.ofDays(1) : operationTimeout).toNanos();
        return () -> {
            Map<LocalDate, DayState> out = emptyDays(from, toInclusive);
            for (Result r : await(rows, deadline)) {
                putDay(out, r);
            }
            return out;
        };
    }

    /** An asynchronous client's whole scan of a table (e.g. {@code AsyncTable.scanAll}). */
    @FunctionalInterface
    public interface AsyncScan {
        java.util.concurrent.CompletableFuture<java.util.List<Result>> scanAll(org.apache.hadoop.hbase.TableName table, Scan scan);
    }

    private Map<LocalDate, DayState> readDays(LocalDate from, LocalDate toInclusive) {
        Map<LocalDate, DayState> out = emptyDays(from, toInclusive);
        try (Table t = table(); ResultScanner rs = t.getScanner(dayScan(from, toInclusive))) {
            for (Result r : rs) {
                putDay(out, r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static Map<LocalDate, DayState> emptyDays(LocalDate from, LocalDate toInclusive) {
        Map<LocalDate, DayState> out = new LinkedHashMap<>();
        for (LocalDate d = from; !d.isAfter(toInclusive); d = d.plusDays(1)) {
            out.put(d, new DayState(d));
        }
        return out;
    }

    private static Scan dayScan(LocalDate from, LocalDate toInclusive) {
        return new Scan().withStartRow(dayRow(from)).withStopRow(dayRow(toInclusive.plusDays(1)));
    }

    private static void putDay(Map<LocalDate, DayState> out, Result r) {
        LocalDate d = UtcDay.parse(Bytes.toString(r.getRow()).substring(4)).date();
        out.put(d, toDay(d, r));
    }

    /** Days in [from, to] that are closing or reconciled. */
    public Set<LocalDate> closedDays(LocalDate from, LocalDate toInclusive) {
        Set<LocalDate> out = new HashSet<>();
        days(from, toInclusive).values().stream().filter(DayState::closed).forEach(d -> out.add(d.day()));
        return out;
    }

    private static DayState toDay(LocalDate day, Result r) {
        if (r == null || r.isEmpty() || r.getValue(F, STATUS) == null) {
            return new DayState(day);
        }
        DayStatus status = "reconciled".equals(Bytes.toString(r.getValue(F, STATUS))) ? DayStatus.RECONCILED : DayStatus.CLOSING;
        Cell late = r.getColumnLatestCell(F, LATE_AT);
        Cell closing = r.getColumnLatestCell(F, CLOSING_AT);
        boolean lateSinceClose = late != null && (closing == null || late.getTimestamp() >= closing.getTimestamp());
        return new DayState(day, status, instant(r.getValue(F, CLOSING_AT)), instant(r.getValue(F, RECONCILED_AT)),
                r.getValue(F, DRIFT) == null ? null : Bytes.toString(r.getValue(F, DRIFT)), lateSinceClose);
    }

    // --- aggregators -----------------------------------------------------------------------

    /** Records that aggregator {@code id} is alive and has stopped and flushed {@code closedDays}. */
    public void heartbeat(String id, Set<LocalDate> closedDays) {
        heartbeat(id, closedDays, null, 0);
    }

    /**
     * As {@link #heartbeat(String, Set)}, declaring that the next heartbeat comes within
     * {@code expiresIn} (null: no declaration, the reader's liveness window applies). An instance
     * that dies stops being waited for once it expires; {@code Duration.ZERO} retires it at once.
     * {@code instances} is its aggregator.instances setting (0: not declared).
     */
    public void heartbeat(String id, Set<LocalDate> closedDays, java.time.Duration expiresIn, int instances) {
        Put p = new Put(Bytes.toBytes("agg/" + id));
        long now = clock.millis();
        p.addColumn(F, HEARTBEAT, Bytes.toBytes(now));
        if (expiresIn != null) {
            p.addColumn(F, EXPIRES_AT, Bytes.toBytes(now + expiresIn.toMillis()));
        }
        if (instances > 0) {
            p.addColumn(F, INSTANCES, Bytes.toBytes(instances));
        }
        for (LocalDate d : closedDays) {
            p.addColumn(F, Bytes.toBytes(ACK + d), Bytes.toBytes(now));
        }
        put(p);
    }

    /**
     * Records where aggregator {@code id} answers live-counts requests (its ingest server's base
     * URL), in its heartbeat row; readers use it while the instance is live.
     */
    public void advertise(String id, String liveUrl) {
        Put p = new Put(Bytes.toBytes("agg/" + id));
        p.addColumn(F, LIVE_URL, Bytes.toBytes(liveUrl));
        put(p);
    }

    public List<AggregatorState> aggregators() {
        List<AggregatorState> out = new ArrayList<>();
        Scan scan = new Scan().withStartRow(Bytes.toBytes("agg/")).withStopRow(Bytes.toBytes("agg0"));
        try (Table t = table(); ResultScanner rs = t.getScanner(scan)) {
            for (Result r : rs) {
                Set<LocalDate> closed = new HashSet<>();
                NavigableMap<byte[], byte[]> cols = r.getFamilyMap(F);
                for (byte[] q : cols.keySet()) {
                    String name = Bytes.toString(q);
                    if (name.startsWith(ACK)) {
                        closed.add(LocalDate.parse(name.substring(ACK.length())));
                    }
                }
                out.add(new AggregatorState(Bytes.toString(r.getRow()).substring(4), instant(r.getValue(F, HEARTBEAT)), closed,
                        instant(r.getValue(F, EXPIRES_AT)), r.getValue(F, INSTANCES) == null || r.getValue(F, INSTANCES).length != 4
                        ? 0 : Bytes.toInt(r.getValue(F, INSTANCES)),
                        r.getValue(F, LIVE_URL) == null ? null : Bytes.toString(r.getValue(F, LIVE_URL))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    // --- API keys --------------------------------------------------------------------------

    public void putKey(String hash, String role) {
        Put p = new Put(Bytes.toBytes("key/" + hash));
        p.addColumn(F, ROLE, Bytes.toBytes(role));
        p.addColumn(F, CREATED_AT, Bytes.toBytes(clock.millis()));
        put(p);
    }

    public void revokeKey(String hash) {
        Put p = new Put(Bytes.toBytes("key/" + hash));
        p.addColumn(F, REVOKED_AT, Bytes.toBytes(clock.millis()));
        put(p);
    }

    public Optional<KeyRecord> key(String hash) {
        return withDeadline(() -> {
            try (Table t = table()) {
                Result r = t.get(new Get(Bytes.toBytes("key/" + hash)));
                if (r.isEmpty() || r.getValue(F, ROLE) == null) {
                    return Optional.empty();
                }
                return Optional.of(toKey(hash, r));
            }
        });
    }

    /**
     * Runs a read of a request path under a hard deadline when this store has an operation
     * timeout. HBase's own operation timeout does not cover a caller parked on the connection's
     * region-lookup lock while another thread waits out a meta lookup (minutes during an outage);
     * so the read runs on a small bounded pool and the caller stops waiting at the deadline
     * (503 upstream). A full pool refuses at once rather than queueing callers behind a dead HBase.
     */
    private <T> T withDeadline(java.util.concurrent.Callable<T> read) {
        return startWithDeadline(read).get();
    }

    /**
     * Starts {@code read} now (on the deadline pool when this store has an operation timeout) and
     * returns the wait for its answer, so a caller can overlap it with its own reads. Without a
     * timeout the read runs at once on the caller's thread.
     */
    private <T> java.util.function.Supplier<T> startWithDeadline(java.util.concurrent.Callable<T> read) {
        if (operationTimeout == null) {
            T value;
            try {
                value = read.call();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (Exception e) {
                throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
            }
            return () -> value;
        }
        java.util.concurrent.Future<T> f;
        try {
            f = DeadlinePool.POOL.submit(read);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new UncheckedIOException(new IOException("meta table busy: too many reads already waiting for HBase"));
        }
        long deadline = System.nanoTime() + operationTimeout.toNanos();
        return () -> await(f, deadline);
    }

    private <T> T await(java.util.concurrent.Future<T> f, long deadlineNanos) {
        try {
            return f.get(Math.max(0, deadlineNanos - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            f.cancel(true);
            throw new UncheckedIOException(new IOException("meta table did not answer within " + operationTimeout.toMillis() + " ms"));
        } catch (java.util.concurrent.ExecutionException e) {
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

    /** Threads for deadline-bound meta reads, shared by every store of the process; daemon, bounded. */
    private static final class DeadlinePool {
        static final java.util.concurrent.ExecutorService POOL = new java.util.concurrent.ThreadPoolExecutor(4, 4, 60,
                java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.ArrayBlockingQueue<>(256), r -> {
                    Thread t = new Thread(r, "adreport-meta-read");
                    t.setDaemon(true);
                    return t;
                });
    }

    public List<KeyRecord> keys() {
        List<KeyRecord> out = new ArrayList<>();
        Scan scan = new Scan().withStartRow(Bytes.toBytes("key/")).withStopRow(Bytes.toBytes("key0"));
        try (Table t = table(); ResultScanner rs = t.getScanner(scan)) {
            for (Result r : rs) {
                if (r.getValue(F, ROLE) != null) {
                    out.add(toKey(Bytes.toString(r.getRow()).substring(4), r));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static KeyRecord toKey(String hash, Result r) {
        return new KeyRecord(hash, Bytes.toString(r.getValue(F, ROLE)), instant(r.getValue(F, CREATED_AT)),
                instant(r.getValue(F, REVOKED_AT)));
    }

    // --- helpers ---------------------------------------------------------------------------

    private static byte[] dayRow(LocalDate day) {
        return Bytes.toBytes("day/" + UtcDay.of(day));
    }

    private static Instant instant(byte[] v) {
        return v == null || v.length != 8 ? null : Instant.ofEpochMilli(Bytes.toLong(v));
    }

    private void put(Put p) {
        try (Table t = table()) {
            t.put(p);
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
