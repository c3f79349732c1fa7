package io.adreport.aggregator.spend;

import io.adreport.aggregator.TableSource;
import io.adreport.aggregator.WriteTally;
import io.adreport.aggregator.flush.FlushThread;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.Event;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.spend.SpendRows;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live campaign spend: sums the {@code costMicros} of newly stored impressions per (campaign, UTC
 * quarter hour) in memory and writes them every {@code spend.flush.ms} (≤ 1 s) as Increments into
 * this aggregator's shard rows of {@link SpendRows}, beside a Put of the shard's unflushed bound.
 *
 * <p>Its own thread, its own {@code Table.batch}: a spend flush is a handful of small row
 * operations (one per campaign that spent) and never waits behind the counter flush, whose
 * batches may carry millions of cells. Spend is an input of budget enforcement, so it must be
 * fresher than the reports.
 *
 * <p>Concurrency: raw-store writer threads call {@link #add} under the read lock of
 * {@code swap} (adders of one generation never block one another); the flush thread takes the
 * write lock only to swap the generation map. {@code window} (the recent per-interval spend that
 * makes the bound) is touched by the flushing thread only, under {@code flushLock}.
 *
 * <p>Bound: the most that one shard may hold in memory for a campaign is what it adds in one flush
 * interval; the published bound is the largest such amount over the last {@link #WINDOW} of
 * intervals, so a burst raises it at once and it decays a minute after the burst ends.
 *
 * <p>Batches: the operations of one flush go out in {@code Table.batch} calls of at most
 * {@link #BATCH_ROWS} rows and {@link #BATCH_CELLS} cells, one after another, each within the
 * tables' operation timeout. A back-fill touches every campaign and up to 96 quarters of each at
 * once: as one call of 30,000 rows it outlasted that timeout on every flush, so the whole
 * generation was retried (its Increments counted twice where the server had applied them) and
 * grew until ingest stopped.
 * After a call fails, the rest of the flush is not sent (HBase is then likely slow or away): its
 * row flushes are held in doubt with the failed call's (certain not to be applied, they apply when
 * sent again).
 *
 * <p>Exactly once: each campaign row's Increment goes out as {@link SpendRows#flush}, a
 * conditional row mutation that also moves the row's flush count {@code n}, and applies only while
 * {@code n} is the count this flusher last saw there ({@code applied}; read with one Get the first
 * time a row is flushed, or again after it was idle for a minute). An operation whose outcome is
 * unknown (a timeout after the server may have applied it, a call that failed or was not sent) is
 * held <em>in doubt</em> and sent again unchanged at the next flush, before anything new for that
 * row: it either applies then, or its condition fails because it was applied before, which a Get
 * of {@code n} confirms. The campaign's newer spend waits one flush meanwhile. Only this process
 * writes its shard's rows, so {@code n} moves only by its own flushes; a row found elsewhere (its
 * cells outlived by the table's TTL, or two aggregators given one {@code aggregator.id}) is logged,
 * re-read and its spend sent again at least once.
 *
 * <p>Failure: bound Puts that fail are not retried (the next change of the bound writes it). An
 * in-doubt flush is retried at every flush until its outcome is known; at {@link #close()} one last
 * flush tries, and what is still in doubt is logged and left to the nightly job (the budget reads
 * reconciled days from the exact counters). Memory is bounded: at {@code maxKeys} pending
 * (campaign, quarter) keys the thread is woken to flush early; keys are never dropped; at most one
 * flush per campaign row is held in doubt. {@link #abandon()} drops the pending spend as a crash
 * would.
 */
public final class SpendFlusher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SpendFlusher.class);
    static final Duration WINDOW = Duration.ofMinutes(1);
    /** Row operations per {@code Table.batch} call of a flush. */
    public static final int BATCH_ROWS = 1_000;
    /**
     * Cells per {@code Table.batch} call of a flush (a call ends at whichever bound comes first). A
     * back-fill's Increment of one campaign holds a cell per quarter hour it spent in, up to 96 a
     * day: 1,000 such rows were ~100,000 read-modify-writes in one call, which on a slow day still
     * outlasted the operation timeout, and the live lifetime spend of a 1,000,000-event back-fill
     * ended 2.7% above the file's own sum.
     */
    public static final int BATCH_CELLS = 10_000;

    record Key(String advertiser, String campaign, long quarter) {
    }

    /** A campaign row's flush whose outcome is unknown: the row's count before it, and its micros by quarter. */
    private record InDoubt(long applied, Map<Long, Long> micros) {
    }

    /** One campaign row's conditional flush in a flush's operations. */
    private record Planned(String id, byte[] row, long applied, Map<Long, Long> micros, boolean again) {
        long total() {
            return micros.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final TableSource tables;
    private final TableLayout layout;
    private final String shard;
    private final Clock clock;
    private final int windowSlots;
    private final int maxKeys;
    private final ReentrantReadWriteLock swap = new ReentrantReadWriteLock();
    private final ReentrantLock flushLock = new ReentrantLock();
    private final Map<String, BoundRing> window = new HashMap<>();
    /** Per campaign id: the row's flush count {@code n} as this flusher last knew it; dropped with the row's bound ring. */
    private final Map<String, Long> applied = new HashMap<>();
    /** Per campaign id: its flush whose outcome is unknown, sent again unchanged. */
    private final Map<String, InDoubt> inDoubt = new HashMap<>();
    private volatile int inDoubtRows;
    private final Metrics.Counter flushes;
    private final Metrics.Counter failures;
    private final Metrics.Counter flushedMicros;
    private final Metrics.Histogram flushSeconds;
    private final FlushThread thread;
    private final WriteTally tally;
    private volatile ConcurrentHashMap<Key, LongAdder> pending = new ConcurrentHashMap<>();
    private int slot;

    public SpendFlusher(TableSource tables, TableLayout layout, String shard, Duration interval, Clock clock, Metrics metrics) {
        this.tables = tables;
        this.layout = layout;
        this.shard = shard;
        this.clock = clock;
        this.windowSlots = (int) Math.max(1, WINDOW.toMillis() / Math.max(1, interval.toMillis()));
        this.maxKeys = 100_000;
        this.flushes = metrics.counter("adreport_spend_flushes_total", "Flushes of live campaign spend");
        this.failures = metrics.counter("adreport_spend_flush_failures_total",
                "Spend row operations that failed or whose outcome is unknown (an Increment is sent again unchanged next flush)");
        this.flushedMicros = metrics.counter("adreport_spend_flushed_micros_total", "Spend (micros) written to the spend rows");
        this.tally = WriteTally.of(metrics, "spend");
        this.flushSeconds = metrics.histogram("adreport_spend_flush_seconds", "Duration of one spend flush", Metrics.LATENCY_BUCKETS);
        metrics.gauge("adreport_spend_pending_keys", "Campaign quarter-hours of spend waiting in memory", () -> pending.size());
        metrics.gauge("adreport_spend_in_doubt_rows", "Campaign spend flushes whose outcome is unknown, sent again unchanged",
                () -> inDoubtRows);
        this.thread = new FlushThread("adreport-spend-flusher", interval, () -> pending.size() >= maxKeys, this::flushNow,
                ex -> LOG.error("spend flush failed unexpectedly", ex));
    }

    /** Adds a newly stored event's spend (impressions with a cost only). */
    public void add(Event e) {
        if (!ProfileModel.IMPRESSION.equals(e.type())) {
            return;
        }
        long cost = e.number(SpendRows.COST_FIELD);
        String advertiser = e.dimensions().get(ProfileModel.ADVERTISER);
        String campaign = e.dimensions().get(ProfileModel.CAMPAIGN);
        if (cost <= 0 || advertiser == null || campaign == null) {
            return;
        }
        add(new Key(advertiser, campaign, SpendRows.quarterStart(e.ts().toEpochMilli())), cost);
    }

    private void add(Key k, long micros) {
        int size;
        swap.readLock().lock();
        try {
            ConcurrentHashMap<Key, LongAdder> p = pending;
            p.computeIfAbsent(k, x -> new LongAdder()).add(micros);
            size = p.size();
        } finally {
            swap.readLock().unlock();
        }
        if (size >= maxKeys) {
            thread.wakeUp();
        }
    }

    /** Writes everything added so far and returns when done. */
    public void flushNow() {
        flushLock.lock();
        try {
            flush();
        } finally {
            flushLock.unlock();
        }
    }

    /** One flush; the caller holds {@code flushLock}. */
    private void flush() {
        long start = System.nanoTime();
        ConcurrentHashMap<Key, LongAdder> gen;
        swap.writeLock().lock();
        try {
            gen = pending;
            pending = new ConcurrentHashMap<>();
        } finally {
            swap.writeLock().unlock();
        }
        // Per campaign: micros by quarter, and the interval total for the bound.
        Map<String, Map<Long, Long>> byCampaign = new TreeMap<>();
        for (Map.Entry<Key, LongAdder> e : gen.entrySet()) {
            Key k = e.getKey();
            String id = k.advertiser() + "\0" + k.campaign();
            byCampaign.computeIfAbsent(id, x -> new TreeMap<>()).merge(k.quarter(), e.getValue().sum(), Long::sum);
        }
        slot = (slot + 1) % windowSlots;
        // The rows' flushes: those in doubt again unchanged, then this generation's for the other rows.
        List<Planned> planned = new ArrayList<>();
        inDoubt.forEach((id, d) -> planned.add(new Planned(id, row(id), d.applied(), d.micros(), true)));
        List<String> unread = new ArrayList<>();
        for (Map.Entry<String, Map<Long, Long>> e : byCampaign.entrySet()) {
            if (!inDoubt.containsKey(e.getKey()) && !applied.containsKey(e.getKey())) {
                unread.add(e.getKey());
            }
        }
        Map<String, Long> read = readApplied(unread);
        for (Map.Entry<String, Map<Long, Long>> e : byCampaign.entrySet()) {
            String id = e.getKey();
            Long known = applied.getOrDefault(id, read.get(id));
            if (inDoubt.containsKey(id) || known == null) {
                requeue(id, e.getValue()); // after the row's flush in doubt, or once its count is read
            } else {
                planned.add(new Planned(id, row(id), known, e.getValue(), false));
            }
        }
        List<Row> ops = new ArrayList<>();
        for (Planned p : planned) {
            ops.add(SpendRows.flush(p.row(), p.applied(), p.micros(), Durability.SYNC_WAL));
        }
        long now = clock.millis();
        // Bounds: every campaign with a recent interval, including those that spent nothing now (the bound decays).
        for (String id : byCampaign.keySet()) {
            window.computeIfAbsent(id, x -> new BoundRing(windowSlots));
        }
        for (Iterator<Map.Entry<String, BoundRing>> it = window.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, BoundRing> w = it.next();
            BoundRing ring = w.getValue();
            long before = ring.max();
            Map<Long, Long> spent = byCampaign.get(w.getKey());
            long after = ring.set(slot, spent == null ? 0 : spent.values().stream().mapToLong(Long::longValue).sum());
            if (spent != null || after != before) {
                ops.add(SpendRows.bound(row(w.getKey()), after, now));
            }
            if (after == 0) {
                it.remove();
                applied.remove(w.getKey()); // idle for a minute: read again when it spends
            }
        }
        if (ops.isEmpty()) {
            return;
        }
        Object[] results = send(ops);
        long written = 0;
        List<Planned> refused = new ArrayList<>();
        for (int i = 0; i < planned.size(); i++) {
            Planned p = planned.get(i);
            if (results[i] instanceof CheckAndMutateResult r) {
                if (r.isSuccess()) {
                    applied.put(p.id(), p.applied() + 1);
                    inDoubt.remove(p.id());
                    written += p.total();
                } else {
                    refused.add(p);
                }
            } else {
                failures.inc();
                inDoubt.put(p.id(), new InDoubt(p.applied(), p.micros()));
            }
        }
        written += settleRefused(refused);
        inDoubtRows = inDoubt.size();
        flushedMicros.add(written);
        flushes.inc();
        flushSeconds.observeNanos(System.nanoTime() - start);
    }

    /**
     * The flushes whose condition failed: sent again after an unknown outcome, one that finds
     * {@code n} one past its own was applied before; anything else means the row moved on without
     * this flusher (logged), and its spend is sent again from the row's count as read now. Returns
     * the micros now known written.
     */
    private long settleRefused(List<Planned> refused) {
        if (refused.isEmpty()) {
            return 0;
        }
        Result[] found;
        try (Table t = tables.open(layout.spendTable())) {
            List<Get> gets = new ArrayList<>(refused.size());
            for (Planned p : refused) {
                gets.add(SpendRows.sequenceGet(p.row()));
            }
            found = t.get(gets);
        } catch (IOException ex) {
            LOG.warn("spend flush: reading the flush count of {} rows failed, tried again next flush: {}", refused.size(), ex.toString());
            for (Planned p : refused) {
                if (p.again()) {
                    continue; // still in doubt
                }
                applied.remove(p.id());
                requeue(p.id(), p.micros());
            }
            return 0;
        }
        long written = 0;
        for (int i = 0; i < refused.size(); i++) {
            Planned p = refused.get(i);
            long n = SpendRows.sequence(found[i]);
            applied.put(p.id(), n);
            inDoubt.remove(p.id());
            if (p.again() && n == p.applied() + 1) {
                written += p.total(); // applied by the call whose answer was lost
            } else {
                LOG.warn("spend flush: row {} holds flush count {}, not {}: written by another process or expired; its spend is sent "
                        + "again", Bytes.toStringBinary(p.row()), n, p.applied() + (p.again() ? 1 : 0));
                requeue(p.id(), p.micros());
            }
        }
        return written;
    }

    /** The flush counts of rows not known yet (absent: 0); rows whose read failed are left out. */
    private Map<String, Long> readApplied(List<String> ids) {
        Map<String, Long> out = new HashMap<>();
        if (ids.isEmpty()) {
            return out;
        }
        try (Table t = tables.open(layout.spendTable())) {
            for (int from = 0; from < ids.size(); from += BATCH_ROWS) {
                List<String> chunk = ids.subList(from, Math.min(ids.size(), from + BATCH_ROWS));
                List<Get> gets = new ArrayList<>(chunk.size());
                for (String id : chunk) {
                    gets.add(SpendRows.sequenceGet(row(id)));
                }
                Result[] found = t.get(gets);
                for (int i = 0; i < chunk.size(); i++) {
                    out.put(chunk.get(i), SpendRows.sequence(found[i]));
                }
            }
        } catch (IOException ex) {
            LOG.warn("spend flush: reading the flush count of {} rows failed ({} read), their spend waits: {}", ids.size(), out.size(),
                    ex.toString());
        }
        return out;
    }

    /** This shard's row of a campaign id ({@code advertiser 0x00 campaign}). */
    private byte[] row(String id) {
        String[] ac = id.split("\0", 2);
        return SpendRows.row(ac[0], ac[1], shard);
    }

    /** Adds {@code micros by quarter} of a campaign id back into the pending generation. */
    private void requeue(String id, Map<Long, Long> micros) {
        String[] ac = id.split("\0", 2);
        micros.forEach((q, v) -> add(new Key(ac[0], ac[1], q), v));
    }

    /**
     * Sends {@code ops} in calls of at most {@link #BATCH_ROWS} rows and {@link #BATCH_CELLS}
     * cells (a row of more cells alone in its call); returns each operation's result, null where it
     * failed or was not sent (after a failed call the rest is not sent).
     */
    private Object[] send(List<Row> ops) {
        Object[] results = new Object[ops.size()];
        try (Table t = tables.open(layout.spendTable())) {
            for (int from = 0, to; from < ops.size(); from = to) {
                int cells = cells(ops.get(from));
                for (to = from + 1; to < ops.size() && to - from < BATCH_ROWS && cells + cells(ops.get(to)) <= BATCH_CELLS; to++) {
                    cells += cells(ops.get(to));
                }
                List<Row> chunk = ops.subList(from, to);
                Object[] answers = new Object[chunk.size()];
                tally.sent(chunk);
                try {
                    t.batch(chunk, answers);
                } finally {
                    System.arraycopy(answers, 0, results, from, answers.length);
                }
            }
        } catch (IOException ex) {
            LOG.warn("spend flush: {} of {} operations failed or not sent, retried next flush: {}", countFailed(results), ops.size(),
                    ex.toString());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return results;
    }

    private static int cells(Row op) {
        return Math.max(1, WriteTally.cells(op));
    }

    private static int countFailed(Object[] results) {
        int n = 0;
        for (Object r : results) {
            if (r == null || r instanceof Throwable) {
                n++;
            }
        }
        return n;
    }

    /** Stops as a crash would: what is pending is lost (the nightly job's counters restore it). */
    public void abandon() {
        thread.stop(Duration.ZERO, true);
    }

    /** Flushes what is pending and stops; logs the campaigns whose last flush is still in doubt. */
    @Override
    public void close() {
        thread.stop(Duration.ofSeconds(10), true);
        flushNow();
        if (inDoubtRows > 0) {
            LOG.warn("spend flusher closed with {} campaigns' last flush in doubt: the nightly job's counters correct their days",
                    inDoubtRows);
        }
    }
}
