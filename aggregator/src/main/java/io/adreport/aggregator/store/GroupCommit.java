package io.adreport.aggregator.store;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.TableSource;
import io.adreport.aggregator.dayclose.DayCloseWatcher;
import io.adreport.aggregator.flush.CounterWriter;
import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.counting.CounterFanout;
import io.adreport.aggregator.profile.ViewRecorder;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group commit of a writer: dedup, attribution, raw puts, counting, answers.
 *
 * <h2>Dedup, exact within one aggregator</h2>
 * The identity of an event is its raw row key (type, id, UTC day of ts). A writer first claims
 * each identity in the process-wide {@code inFlight} map. A claim that fails (another writer,
 * or an earlier event of the same batch, holds it) makes the event wait for the holder's
 * outcome: it is a duplicate if the holder stored it or found it stored, and fails if the holder
 * failed. Claimed identities are checked with one multi-get (existence of {@code e:a}); absent
 * ones are written with one multi-put ({@code SYNC_WAL}), and only then released. So while an
 * identity is being written nobody else can check it, and after the release every check sees
 * the row: the first write wins and is counted, exactly once, without a checkAndMutate per
 * event (BASELINES: that costs ~4.5x a plain put).
 *
 * <h2>Dedup across aggregators ({@code aggregator.instances > 1})</h2>
 * The in-flight map and the existence read see only this process: two aggregators racing on the
 * same identity (a retried beacon that lands on another instance) could both read "absent" and
 * both count it. With several instances the raw write is therefore <em>conditional</em>: one
 * batched {@code checkAndMutate} per group commit, each row's Put applied only if its
 * {@code e:a} cell does not exist (the region server checks and puts under the row lock). Exactly
 * one writer of an identity gets "applied" and counts it; every other one gets "not applied" and
 * answers duplicate. No existence read is needed (the condition is the read) and the dedup
 * filter is off (it cannot see the other instances' writes). A region server applies each
 * conditional put as its own operation: sent {@code SYNC_WAL}, each waited for its own WAL sync
 * (10.5 s for 5,000 rows on the multi-host cluster). They are sent {@code ASYNC_WAL} and made
 * durable by one synced marker per region before the group is counted or answered
 * ({@link RawPuts#putIfAbsent}). It buys exact live counters without id affinity. Named
 * limit: a join event whose target is still in flight at <em>another</em> instance is counted
 * unattributed live (the same race as a click arriving before its impression); the recount
 * attributes it.
 *
 * <h2>A write with an unknown outcome</h2>
 * A raw write that times out or fails may still have been applied. Its events are answered 503
 * and not counted, and their rows are held in {@link InDoubtRows} with the attempt's token, which
 * each raw row carries ({@code e:a}, one token per group commit). A retry that finds such a row
 * stored with one of those tokens (the existence read's cell; with several instances, a Get of
 * the rows whose put-if-absent was not applied and which are in doubt here) counts it and answers
 * stored; rows nobody retries here are checked by {@link #settleInDoubt}. Each uncounted row is
 * so counted once, by the instance whose attempt stored it; a retry at another instance answers
 * duplicate. Limits: a crash loses the record (the nightly pass counts those rows), and a write
 * that lands more than {@link InDoubtRows#GIVE_UP} after it timed out is answered duplicate on a
 * later retry and counted by the nightly pass only.
 *
 * <h2>Attribution</h2>
 * A join event's target keys ({@link CounterCells#joinTargets}: its day and {@code lookbackDays}
 * before) are read in the same multi-get; a target still in flight in this
 * process is taken from memory. Found: the event is counted under the target's dimensions.
 * Not found: counted unattributed ({@link CounterFanout} decides what that touches).
 *
 * <h2>Reads skipped</h2>
 * Both kinds of read are skipped for rows that {@link StoredIds} knows to be absent (a Bloom
 * filter of each recent day's stored keys): for live traffic that is nearly every new event, so
 * a group commit is usually one multi-put and a handful of gets.
 *
 * <h2>Order of writes</h2>
 * Raw put first, counters second, answer last: an answered event is durable; a crash between
 * put and flush loses only live deltas, which the nightly job restores from the raw rows. A put
 * that fails fails its request (503, nothing counted); a row is written whole or not at all.
 * The device views and index cells ({@link ViewRecorder}) are written beside the raw read and
 * put, not after them, and awaited before the answer: an answered event's view is durable too.
 */
public final class GroupCommit {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

    private final TableLayout layout;
    private final RowKeyCodec keys;
    private final RawEventCodec codec;
    private final CounterCells cells;
    private final TableSource tables;
    private final CounterWriter counters;
    private final DayCloseWatcher days;
    private final Clock clock;
    private final AggregatorMetrics metrics;
    private final StoredIds storedIds;
    private final boolean conditional;
    private final ViewRecorder views;
    private final ConcurrentHashMap<RowId, Entry> inFlight = new ConcurrentHashMap<>();
    private final DuplicateMarks duplicateMarks;
    private final InDoubtRows inDoubt;
    /** Tokens of write attempts: a random base per process, one more per group commit. */
    private final long tokenBase = java.util.concurrent.ThreadLocalRandom.current().nextLong();
    private final java.util.concurrent.atomic.AtomicLong attempts = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicBoolean settling = new java.util.concurrent.atomic.AtomicBoolean();
    /** Rows of one periodic check of rows in doubt (one multi-get), and how often one runs. */
    static final int SETTLE_BATCH = 5_000;
    private static final long SETTLE_EVERY_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(500);
    private volatile long nextSettle = System.nanoTime();

    public GroupCommit(TableLayout layout, TableSource tables, CounterWriter counters, DayCloseWatcher days, Clock clock,
                       AggregatorMetrics metrics, StoredIds storedIds) {
        this(layout, tables, counters, days, clock, metrics, storedIds, false, null);
    }

    /**
     * @param conditional raw writes are put-if-absent (several aggregator instances may receive the
     *                    same event); the caller turns the dedup filter off with it
     * @param views       writes each stored impression's device view, and each stored event's device
     *                    reverse-index cell, before its answer; may be null
     */
    public GroupCommit(TableLayout layout, TableSource tables, CounterWriter counters, DayCloseWatcher days, Clock clock,
                       AggregatorMetrics metrics, StoredIds storedIds, boolean conditional, ViewRecorder views) {
        this.conditional = conditional;
        this.storedIds = storedIds;
        this.views = views;
        this.layout = layout;
        this.keys = new RowKeyCodec(layout.cube());
        this.codec = new RawEventCodec(keys);
        this.cells = new CounterCells(layout.cube(), keys);
        this.tables = tables;
        this.counters = counters;
        this.days = days;
        this.clock = clock;
        this.metrics = metrics;
        this.duplicateMarks = new DuplicateMarks(layout, tables, metrics);
        this.inDoubt = new InDoubtRows(metrics.registry());
    }

    /** One event of a batch and its answer. */
    private static final class Entry {
        final Event event;
        final RowId key;
        final long day;
        final CompletableFuture<Outcome> result = new CompletableFuture<>();
        int existsGet = -1;
        int[] targetGets;
        Map<String, String> inherited; // target dimensions when attributed
        boolean duplicate;
        boolean recovered; // stored by an earlier failed attempt of this process, counted by this one

        Entry(Event event, RowId key) {
            this.event = event;
            this.key = key;
            this.day = UtcDay.epochDayOf(event.ts());
        }
    }

    private long nextToken() {
        long t;
        do {
            t = tokenBase + attempts.incrementAndGet();
        } while (t == RawEventCodec.NO_TOKEN);
        return t;
    }

    void commit(List<RawStore.Submission> batch) {
        List<Entry> owned = new ArrayList<>();
        for (RawStore.Submission s : batch) {
            List<CompletableFuture<Outcome>> answers = new ArrayList<>(s.events().size());
            for (Event e : s.events()) {
                Entry entry = new Entry(e, new RowId(codec.rowKey(e)));
                answers.add(entry.result);
                Entry holder = inFlight.putIfAbsent(entry.key, entry);
                if (holder == null) {
                    owned.add(entry);
                } else {
                    holder.result.whenComplete((o, ex) -> {
                        if (ex != null) {
                            entry.result.completeExceptionally(ex);
                        } else {
                            duplicateMarks.queue(entry.key.row());
                            entry.result.complete(Outcome.DUPLICATE);
                        }
                    });
                }
            }
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).whenComplete((v, ex) -> {
                if (ex != null) {
                    s.done().completeExceptionally(ex instanceof java.util.concurrent.CompletionException c ? c.getCause() : ex);
                } else {
                    s.done().complete(answers.stream().map(CompletableFuture::join).toList());
                }
            });
        }
        if (!owned.isEmpty()) {
            writeOwned(owned);
        }
        markPendingDuplicates();
    }

    private void writeOwned(List<Entry> owned) {
        long start = System.nanoTime();
        PendingViews pendingViews = startViews(owned); // beside the raw read and put: one round trip, not two
        List<Entry> stored = new ArrayList<>();
        List<byte[]> duplicateRows = new ArrayList<>();
        long token = nextToken();
        List<Entry> putEntries = new ArrayList<>(owned.size());
        List<InDoubtRows.Doubt> recovered = new ArrayList<>(); // rows an earlier failed attempt of ours stored: counted now
        boolean sent = false;
        try (Table raw = tables.open(layout.rawTable())) {
            List<Get> gets = readPlan(owned);
            Result[] results = gets.isEmpty() ? new Result[0] : raw.get(gets);
            Instant arrival = clock.instant();
            List<Put> puts = new ArrayList<>(owned.size());
            for (Entry e : owned) {
                if (e.existsGet >= 0 && !results[e.existsGet].isEmpty()) {
                    if (!inDoubt.isEmpty() && recover(e, RawEventCodec.writerToken(results[e.existsGet]), recovered)) {
                        stored.add(e);
                        continue;
                    }
                    e.duplicate = true;
                    duplicateRows.add(e.key.row());
                    continue;
                }
                if (e.targetGets != null && e.inherited == null) {
                    for (int g : e.targetGets) {
                        if (!results[g].isEmpty()) {
                            e.inherited = RawEventCodec.fromResult(results[g]).dimensions();
                            break;
                        }
                    }
                }
                storedIds.stored(e.key.row(), e.day);
                puts.add(codec.toPut(e.event, e.key.row(), arrival, token));
                putEntries.add(e);
            }
            Set<RowId> failed;
            sent = true;
            if (conditional) {
                failed = Set.of();
                boolean[] applied = RawPuts.putIfAbsent(raw, puts, RawEventCodec.ARRIVAL, metrics.rawWrites);
                List<Entry> notApplied = new ArrayList<>();
                for (int i = 0; i < applied.length; i++) {
                    if (!applied[i]) {
                        notApplied.add(putEntries.get(i));
                    }
                }
                for (Entry e : recoverNotApplied(raw, notApplied, recovered)) {
                    e.duplicate = true;
                    duplicateRows.add(e.key.row());
                }
            } else {
                failed = RawPuts.put(raw, puts, metrics.rawWrites);
            }
            long now = System.nanoTime();
            for (Entry e : putEntries) {
                if (e.duplicate) {
                    continue;
                }
                if (failed.contains(e.key)) {
                    inDoubt.failed(e.key, e.event, e.inherited, token, now);
                    e.result.completeExceptionally(new StoreUnavailable("raw write failed", null));
                    metrics.storeFailures.inc();
                } else {
                    if (!inDoubt.isEmpty() && !e.recovered) {
                        inDoubt.storedAgain(e.key);
                    }
                    stored.add(e);
                }
            }
        } catch (IOException | RuntimeException ex) {
            LOG.warn("raw group commit of {} events failed: {}", owned.size(), ex.toString());
            metrics.storeFailures.add(owned.size());
            recovered.forEach(inDoubt::restore); // not counted: still in doubt
            if (sent) { // the puts may have been applied: their rows are in doubt until found or given up
                long now = System.nanoTime();
                for (Entry e : putEntries) {
                    if (!e.recovered) {
                        inDoubt.failed(e.key, e.event, e.inherited, token, now);
                    }
                }
            }
            release(owned);
            StoreUnavailable failure = new StoreUnavailable("raw table unavailable: " + ex.getMessage(), ex);
            owned.forEach(e -> e.result.completeExceptionally(failure));
            pendingViews.await(days); // a writer has at most one view write outstanding
            return;
        } finally {
            metrics.rawWriteSeconds.observeNanos(System.nanoTime() - start);
        }
        count(stored);
        pendingViews.await(days);
        release(owned);
        for (Entry e : owned) {
            if (!e.result.isDone()) {
                e.result.complete(e.duplicate ? Outcome.DUPLICATE : Outcome.STORED);
            }
        }
        duplicateRows.forEach(duplicateMarks::queue);
    }

    /**
     * A row found stored: when an earlier failed attempt of this process stored it (its token is
     * one of the row's doubt, {@link InDoubtRows}), this entry counts it and is answered stored.
     */
    private boolean recover(Entry e, long storedToken, List<InDoubtRows.Doubt> recovered) {
        InDoubtRows.Doubt d = inDoubt.found(e.key, storedToken);
        if (d == null) {
            return false;
        }
        e.recovered = true;
        if (e.inherited == null) {
            e.inherited = d.inherited();
        }
        recovered.add(d);
        return true;
    }

    /**
     * Of the puts-if-absent not applied, those whose rows are in doubt here are read (their
     * token): the ones an earlier failed attempt of ours stored are recovered. Returns the rest,
     * the group's true duplicates.
     */
    private List<Entry> recoverNotApplied(Table raw, List<Entry> notApplied, List<InDoubtRows.Doubt> recovered) throws IOException {
        if (notApplied.isEmpty() || inDoubt.isEmpty()) {
            return notApplied;
        }
        List<Entry> ours = notApplied.stream().filter(e -> inDoubt.holds(e.key)).toList();
        if (ours.isEmpty()) {
            return notApplied;
        }
        Result[] rows = raw.get(ours.stream().map(e -> arrivalGet(e.key.row())).toList());
        for (int i = 0; i < rows.length; i++) {
            recover(ours.get(i), RawEventCodec.writerToken(rows[i]), recovered);
        }
        return notApplied.stream().filter(e -> !e.recovered).toList();
    }

    /**
     * Settles the rows in doubt whose check is due ({@link InDoubtRows}), for rows nobody retried
     * here: claims each (a retry of it then waits for the check), reads their tokens in one
     * multi-get, counts those an attempt of ours stored, and answers a waiting retry duplicate
     * (stored) or, for a row not found, 503 (retry again). Called by the raw writers after each
     * group commit and while idle, and on shutdown for every row ({@code all}); one caller at a time.
     */
    void settleInDoubt(boolean all) {
        long now = System.nanoTime();
        if (inDoubt.isEmpty() || (!all && now - nextSettle < 0) || !settling.compareAndSet(false, true)) {
            return;
        }
        try {
            nextSettle = now + SETTLE_EVERY_NANOS;
            List<Entry> claimed = new ArrayList<>();
            List<InDoubtRows.Doubt> doubts = new ArrayList<>();
            for (InDoubtRows.Doubt d : inDoubt.due(now, all, SETTLE_BATCH)) {
                Entry holder = new Entry(d.event(), d.key());
                if (inFlight.putIfAbsent(d.key(), holder) == null) {
                    claimed.add(holder);
                    doubts.add(d);
                }
            }
            if (claimed.isEmpty()) {
                return;
            }
            Result[] rows;
            try (Table raw = tables.open(layout.rawTable())) {
                rows = raw.get(claimed.stream().map(e -> arrivalGet(e.key.row())).toList());
            } catch (IOException | RuntimeException ex) {
                LOG.warn("checking {} raw rows in doubt failed, checked again later: {}", claimed.size(), ex.toString());
                doubts.forEach(d -> inDoubt.unread(d, now));
                release(claimed);
                StoreUnavailable failure = new StoreUnavailable("an earlier write of this event has an unknown outcome", ex);
                claimed.forEach(e -> e.result.completeExceptionally(failure));
                return;
            }
            List<Entry> counted = new ArrayList<>();
            List<Entry> absent = new ArrayList<>();
            for (int i = 0; i < rows.length; i++) {
                Entry e = claimed.get(i);
                InDoubtRows.Doubt d = doubts.get(i);
                if (rows[i].isEmpty()) {
                    inDoubt.absent(d, now);
                    absent.add(e);
                } else {
                    InDoubtRows.Doubt mine = inDoubt.found(e.key, RawEventCodec.writerToken(rows[i]));
                    if (mine != null) {
                        e.inherited = mine.inherited();
                        counted.add(e);
                    }
                }
            }
            count(counted);
            release(claimed);
            StoreUnavailable notStored = new StoreUnavailable("an earlier write of this event is not stored yet", null);
            absent.forEach(e -> e.result.completeExceptionally(notStored));
            claimed.forEach(e -> e.result.complete(Outcome.STORED));
            if (!counted.isEmpty()) {
                LOG.info("counted {} events an attempt with an unknown outcome had stored", counted.size());
            }
        } finally {
            settling.set(false);
        }
    }

    /** A read of a raw row's {@code e:a}: whether it is stored, and the token of the attempt that stored it. */
    private static Get arrivalGet(byte[] row) {
        return new Get(row).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.ARRIVAL);
    }

    /** Shutdown, after the writers stopped: every row in doubt checked once, then the duplicate marks. */
    void drain() {
        settleInDoubt(true);
        if (!inDoubt.isEmpty()) {
            LOG.warn("{} raw rows still in doubt at shutdown (not found stored yet): the nightly pass counts any that were", inDoubt.size());
        }
        markPendingDuplicates();
    }

    /**
     * Starts the device views of the group's impressions and the reverse-index cells of its events
     * with a device ({@link ViewRecorder#recordAsync}), duplicates included (a retry after a failed
     * write repairs it; the cells are idempotent). Started before the raw read and put, so the two
     * synchronous writes overlap; {@link PendingViews#await} fails the answer of an event whose
     * cells could not be written. An event whose raw write fails keeps the view written for it
     * until its retry (ViewRecorder, "Beside the raw write").
     */
    private PendingViews startViews(List<Entry> owned) {
        if (views == null) {
            return PendingViews.NONE;
        }
        java.util.IdentityHashMap<Event, Entry> byEvent = new java.util.IdentityHashMap<>();
        for (Entry e : owned) {
            if (!e.result.isDone() && views.wants(e.event)) {
                byEvent.put(e.event, e);
            }
        }
        if (byEvent.isEmpty()) {
            return PendingViews.NONE;
        }
        List<Event> events = new ArrayList<>(byEvent.keySet());
        List<byte[]> rawKeys = events.stream().map(ev -> byEvent.get(ev).key.row()).toList();
        return new PendingViews(views.recordAsync(events, rawKeys), byEvent);
    }

    /** A group's view write in flight and the entries it answers for. */
    private record PendingViews(CompletableFuture<List<Event>> write, Map<Event, Entry> byEvent) {
        static final PendingViews NONE = new PendingViews(null, Map.of());

        /**
         * Waits for the write and fails the answer of each event whose cells were not written; its
         * day gets a view gap ({@link DayCloseWatcher#noteViewGap}): if nobody retries, its raw row
         * may be stored without its view, and the nightly pass writes the day's views again.
         */
        void await(DayCloseWatcher days) {
            if (write == null) {
                return;
            }
            List<Event> failed;
            try {
                failed = write.join();
            } catch (RuntimeException ex) {
                LOG.warn("device view write of {} events failed: {}", byEvent.size(), ex.toString());
                failed = new ArrayList<>(byEvent.keySet());
            }
            for (Event f : failed) {
                Entry e = byEvent.get(f);
                if (days != null) {
                    days.noteViewGap(e.day);
                }
                e.result.completeExceptionally(new StoreUnavailable("device view write failed", null));
            }
        }
    }

    /** Gets for every claimed identity's existence and every join target not found in memory. */
    private List<Get> readPlan(List<Entry> owned) {
        List<Get> gets = new ArrayList<>(owned.size() * 2);
        long read = 0;
        long filtered = 0;
        for (Entry e : owned) {
            long day = e.day;
            if (conditional) {
                e.existsGet = -1; // the conditional put is the check
            } else if (storedIds.mightBeStored(e.key.row(), day)) {
                e.existsGet = gets.size();
                gets.add(arrivalGet(e.key.row()));
                read++;
            } else {
                e.existsGet = -1; // certainly absent
                filtered++;
            }
            List<CounterCells.JoinTarget> candidates = cells.joinTargets(e.event);
            if (candidates.isEmpty()) {
                continue;
            }
            List<Integer> targets = new ArrayList<>();
            for (CounterCells.JoinTarget target : candidates) {
                Entry pending = inFlight.get(new RowId(target.rawKey()));
                if (pending != null) {
                    e.inherited = pending.event.dimensions();
                    break;
                }
                if (!storedIds.mightBeStored(target.rawKey(), target.epochDay())) {
                    filtered++;
                    continue;
                }
                targets.add(gets.size());
                gets.add(new Get(target.rawKey()).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE));
                read++;
            }
            e.targetGets = targets.stream().mapToInt(Integer::intValue).toArray();
        }
        metrics.existenceReads.add(read);
        metrics.existenceSkipped.add(filtered);
        return gets;
    }

    /** Counts the group's newly stored events in one call, so the counter path can sum them first. */
    private void count(List<Entry> stored) {
        List<CounterWriter.Counted> counted = new ArrayList<>(stored.size());
        for (Entry e : stored) {
            if (days.isClosed(e.day)) {
                metrics.late.inc();
                days.noteLate(e.day);
            }
            boolean attributed = e.inherited != null;
            counted.add(new CounterWriter.Counted(attributed ? e.event.withDimensions(e.inherited) : e.event, attributed));
        }
        try {
            counters.countAll(counted);
        } catch (RuntimeException ex) {
            LOG.error("counting {} stored events failed; the nightly job will count them", counted.size(), ex);
        }
    }

    private void release(List<Entry> owned) {
        for (Entry e : owned) {
            inFlight.remove(e.key, e);
        }
    }

    /** Best effort: {@code e:dup += 1} on the raw rows of acknowledged duplicates ({@link DuplicateMarks}). */
    void markPendingDuplicates() {
        duplicateMarks.write();
    }
}
