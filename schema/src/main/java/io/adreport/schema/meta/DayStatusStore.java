package io.adreport.schema.meta;

import static io.adreport.schema.meta.MetaTable.F;
import static io.adreport.schema.meta.MetaTable.instant;

import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Day status in the meta table: the day-close handshake's marks and the drift reports. Rows
 * (family {@code m}):
 * <pre>
 * day/YYYY-MM-DD   status (closing|reconciled), closingAt, reconciledAt (epoch ms), drift (JSON),
 *                  lateAt (epoch ms): an aggregator stored an event of the day while it was closed,
 *                  viewGapAt (epoch ms): a device view of an event of the day may be missing (a view
 *                  write failed, or an aggregator that may have been writing one stopped uncleanly);
 *                  the nightly pass then writes the day's views again and removes the mark
 * </pre>
 * Thread-safe; one table per call over the shared {@link Connection}.
 */
public final class DayStatusStore {
    private static final byte[] STATUS = Bytes.toBytes("status");
    private static final byte[] CLOSING_AT = Bytes.toBytes("closingAt");
    private static final byte[] RECONCILED_AT = Bytes.toBytes("reconciledAt");
    private static final byte[] DRIFT = Bytes.toBytes("drift");
    private static final byte[] LATE_AT = Bytes.toBytes("lateAt");
    private static final byte[] VIEW_GAP_AT = Bytes.toBytes("viewGapAt");

    private final MetaTable meta;

    public DayStatusStore(Connection connection, TableLayout layout, Clock clock) {
        this(connection, layout, clock, null);
    }

    /**
     * As {@link #DayStatusStore(Connection, TableLayout, Clock)}, with every call bounded by
     * {@code operationTimeout} (null: the connection's default); reads wait no longer than that.
     */
    public DayStatusStore(Connection connection, TableLayout layout, Clock clock, Duration operationTimeout) {
        this.meta = new MetaTable(connection, layout, clock, operationTimeout);
    }

    /** Marks {@code day} closing (also when it was reconciled before: a re-run). */
    public void markClosing(LocalDate day) {
        Put p = new Put(dayRow(day));
        p.addColumn(F, STATUS, Bytes.toBytes("closing"));
        p.addColumn(F, CLOSING_AT, Bytes.toBytes(meta.millis()));
        meta.put(p);
    }

    /**
     * Records that an event of closed {@code day} was stored now (after the event's raw row was
     * written): if this is at or after the day's last closing mark, the day is reconciled again.
     */
    public void markLate(LocalDate day) {
        Put p = new Put(dayRow(day));
        p.addColumn(F, LATE_AT, Bytes.toBytes(meta.millis()));
        meta.put(p);
    }

    /** Records that a device view of an event of {@code day} may be missing (see the row layout). */
    public void markViewGap(LocalDate day) {
        meta.put(new Put(dayRow(day)).addColumn(F, VIEW_GAP_AT, Bytes.toBytes(meta.millis())));
    }

    /** When a view gap of {@code day} was last recorded, or null when none is. */
    public Instant viewGap(LocalDate day) {
        return meta.withDeadline(() -> instant(meta.get(new Get(dayRow(day)).addColumn(F, VIEW_GAP_AT)).getValue(F, VIEW_GAP_AT)));
    }

    /**
     * Removes {@code day}'s view gap mark if it is still the one {@code seen} (read before the views
     * were written again); a gap recorded meanwhile stays for the next pass. Returns whether it was removed.
     */
    public boolean clearViewGap(LocalDate day, Instant seen) {
        return meta.deleteIfEquals(dayRow(day), VIEW_GAP_AT, Bytes.toBytes(seen.toEpochMilli()));
    }

    public void markReconciled(LocalDate day, String driftJson) {
        Put p = new Put(dayRow(day));
        p.addColumn(F, STATUS, Bytes.toBytes("reconciled"));
        p.addColumn(F, RECONCILED_AT, Bytes.toBytes(meta.millis()));
        p.addColumn(F, DRIFT, Bytes.toBytes(driftJson));
        meta.put(p);
    }

    public DayState day(LocalDate day) {
        return meta.withDeadline(() -> toDay(day, meta.get(new Get(dayRow(day)))));
    }

    /** States of the days in [from, to], live ones included. */
    public Map<LocalDate, DayState> days(LocalDate from, LocalDate toInclusive) {
        return meta.withDeadline(() -> {
            Map<LocalDate, DayState> out = emptyDays(from, toInclusive);
            meta.scan(dayScan(from, toInclusive), r -> putDay(out, r));
            return out;
        });
    }

    /**
     * {@link #days} started now through an asynchronous client's scan, its answer taken later: a
     * report reads the day states while it reads its counters instead of after them (one meta
     * round trip off the request's path), and no thread of this process waits for HBase until
     * the answer is taken (so no pool is needed for the deadline either: the wait is bounded by
     * this store's operation timeout). The states are those of the moment the read ran, as with
     * {@link #days}.
     */
    public Supplier<Map<LocalDate, DayState>> daysLater(LocalDate from, LocalDate toInclusive, AsyncScan scan) {
        CompletableFuture<List<Result>> rows = scan.scanAll(meta.name(), dayScan(from, toInclusive));
        Duration timeout = meta.operationTimeout();
        long deadline = System.nanoTime() + (timeout == null ? Duration.ofDays(1) : timeout).toNanos();
        return () -> {
            Map<LocalDate, DayState> out = emptyDays(from, toInclusive);
            for (Result r : meta.await(rows, deadline)) {
                putDay(out, r);
            }
            return out;
        };
    }

    /** An asynchronous client's whole scan of a table (e.g. {@code AsyncTable.scanAll}). */
    @FunctionalInterface
    public interface AsyncScan {
        CompletableFuture<List<Result>> scanAll(TableName table, Scan scan);
    }

    /** Days in [from, to] that are closing or reconciled. */
    public Set<LocalDate> closedDays(LocalDate from, LocalDate toInclusive) {
        Set<LocalDate> out = new HashSet<>();
        days(from, toInclusive).values().stream().filter(DayState::closed).forEach(d -> out.add(d.day()));
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

    private static byte[] dayRow(LocalDate day) {
        return Bytes.toBytes("day/" + UtcDay.of(day));
    }
}
