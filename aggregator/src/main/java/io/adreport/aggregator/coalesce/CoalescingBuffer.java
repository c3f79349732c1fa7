package io.adreport.aggregator.coalesce;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Sums counter deltas in memory per (table, row, column) until the flusher drains them.
 *
 * <p>Shape: one entry per counter row ({@link RowCells}) holding one slot per metric column, so
 * a drain yields exactly one multi-column write per row: a hot row gets at most one
 * increment per flush, whatever the traffic.
 *
 * <p>Concurrency: any number of threads add while holding the shared side of {@code swapLock}
 * (one acquisition per batch of adds, see {@link #adder()}); rows are found in a
 * {@link ConcurrentHashMap} and summed with atomic adds, so adders never wait for each other.
 * {@link #drain()} takes the exclusive side only to swap in an empty map, so no delta is ever
 * split between two generations or lost in the swap. The cell and byte gauges are
 * {@link LongAdder}s reset with the swap; so is the time of the generation's first add, which
 * the flusher turns into the freshness lag ({@link Freshness}).
 *
 * <p>Bounds: {@code maxCells} distinct cells, a hard bound. The buffer itself never refuses an
 * add (an event whose raw row is stored must be counted); instead ingest {@link #reserve reserves}
 * room ({@link Reservations}) for a request before it stores anything: the upper bound of the
 * cells its events can add (every granularity of every rollup times the metrics of each event's type). A reservation is
 * granted only while the cells waiting, plus every reservation not yet released, plus the new
 * one fit within {@code maxCells}; it is released once the request's events are counted (their
 * cells are then in {@link #cells()}). So the waiting cells never exceed {@code maxCells}: every
 * cell added was reserved before, and between its add and the release it is counted twice, which
 * only errs on the safe side. One exception keeps ingest live: a request whose bound alone is
 * larger than the whole buffer is admitted when the buffer is empty and nothing is reserved, and
 * may then fill it past the bound by itself. Ingest answers 429 when no room is granted within
 * its block limit. While a reservation waits, {@link #roomWanted()} asks the flusher to drain
 * early. The generation a flusher has taken and is still sending is no longer in this buffer:
 * counter deltas in memory are at most twice {@code maxCells} (one generation on the wire, one
 * filling).
 *
 * <p>Age bound (optional, {@code maxAge}): the buffer also counts as full while its current
 * generation's first delta is older than {@code maxAge}. A size bound alone lets ingest run ahead
 * of a slow flusher: a 2M-cell buffer holds tens of seconds of traffic that does not coalesce, so
 * counts trail by a minute. With the age bound, ingest waits (then answers 429) until the flusher
 * has taken the generation, so what is waiting is never much older than {@code maxAge} plus one
 * flush of that much traffic.
 */
public final class CoalescingBuffer {
    /** Rough heap cost of one row entry beyond its key bytes: map node, RowCells, arrays. */
    static final int ROW_OVERHEAD_BYTES = 160;
    /** Heap cost of one metric slot. */
    static final int CELL_BYTES = 8;

    private final int columns;
    private final int maxCells;
    private final long maxAgeMillis;
    private final ReentrantReadWriteLock swapLock = new ReentrantReadWriteLock();
    private final LongAdder cells = new LongAdder();
    private final Reservations reservations;
    private final LongAdder bytes = new LongAdder();
    /** The filling generation, per table index: a live read visits one rollup's rows only. */
    private volatile ConcurrentHashMap<Integer, ConcurrentHashMap<RowId, RowCells>> rows = new ConcurrentHashMap<>();
    /** Rows per table of the last drained generation: the next one's initial capacity. Swapped under the exclusive lock. */
    private volatile Map<Integer, Integer> sizeHints = Map.of();
    private final Clock clock;
    /** Clock millis of the current generation's first add, or {@link #NO_ADD}; swapped under the exclusive lock. */
    private final AtomicLong firstAddMillis = new AtomicLong(NO_ADD);
    private static final long NO_ADD = Long.MIN_VALUE;

    /**
     * @param columns  metric columns per row (the cube's metric count)
     * @param maxCells distinct cells at which the buffer counts as full
     */
    public CoalescingBuffer(int columns, int maxCells) {
        this(columns, maxCells, Clock.systemUTC());
    }

    /**
     * @param clock times each generation's first add ({@link Generation#firstAdd()}), for the
     *              freshness of what a flush makes visible
     */
    public CoalescingBuffer(int columns, int maxCells, Clock clock) {
        this(columns, maxCells, clock, java.time.Duration.ZERO);
    }

    /** @param maxAge age of the oldest waiting delta at which the buffer counts as full; zero: no age bound */
    public CoalescingBuffer(int columns, int maxCells, Clock clock, java.time.Duration maxAge) {
        this.maxAgeMillis = maxAge.toMillis();
        this.clock = clock;
        if (columns < 1 || columns > 31) {
            throw new IllegalArgumentException("1..31 metric columns supported, got " + columns);
        }
        this.columns = columns;
        this.maxCells = maxCells;
        this.reservations = new Reservations(maxCells, cells::sum, this::tooOld);
    }

    /** Distinct (table, row, column) cells waiting. */
    public long cells() {
        return cells.sum();
    }

    /** Approximate heap bytes held by waiting cells. */
    public long bytes() {
        return bytes.sum();
    }

    /** The clock that times each generation's first add. */
    public Clock clock() {
        return clock;
    }

    public int maxCells() {
        return maxCells;
    }

    /** At the cell bound, or (with an age bound) holding a delta older than it. */
    public boolean full() {
        return cells.sum() >= maxCells || tooOld();
    }

    private boolean tooOld() {
        if (maxAgeMillis <= 0) {
            return false;
        }
        long first = firstAddMillis.get();
        return first != NO_ADD && clock.millis() - first >= maxAgeMillis;
    }

    /** Cells reserved by requests admitted but not yet counted. */
    public long reserved() {
        return reservations.reserved();
    }

    /** True while a reservation waits for room and a drain would free some ({@link Reservations#roomWanted}). */
    public boolean roomWanted() {
        return reservations.roomWanted();
    }

    /** Reserves room for {@code wanted} cells (see the class comment and {@link Reservations#reserve}). */
    public Reservations.Room reserve(long wanted, long timeoutNanos, Runnable onWait) throws InterruptedException {
        return reservations.reserve(wanted, timeoutNanos, onWait);
    }

    /**
     * Opens a batch of adds: holds the shared side of the swap lock until closed. Use one per
     * event (or per batch of events) in try-with-resources.
     */
    public Adder adder() {
        swapLock.readLock().lock();
        return new Adder(rows, sizeHints);
    }

    /** Adds under its own short batch. */
    public void add(int table, byte[] row, int epochDay, int column, long delta) {
        try (Adder a = adder()) {
            a.add(table, row, epochDay, column, delta);
        }
    }

    /** A batch of adds into one buffer generation. Not thread-safe; one thread, briefly. */
    public final class Adder implements AutoCloseable {
        private final ConcurrentHashMap<Integer, ConcurrentHashMap<RowId, RowCells>> target;
        private final Map<Integer, Integer> hints;
        private boolean closed;
        private int mapTable = -1; // the table of lastMap
        private ConcurrentHashMap<RowId, RowCells> lastMap;
        // The row of the previous add: an event's metrics of one row arrive one after another with
        // the same key array, so only the first of them looks the row up (hash + map probe).
        private byte[] lastRow;
        private int lastTable = -1;
        private RowCells lastCells;
        private final RowId probe = new RowId(-1, new byte[0]); // reused for every lookup, never stored

        private Adder(ConcurrentHashMap<Integer, ConcurrentHashMap<RowId, RowCells>> target, Map<Integer, Integer> hints) {
            this.target = target;
            this.hints = hints;
        }

        public void add(int table, byte[] row, int epochDay, int column, long delta) {
            if (column < 0 || column >= columns) {
                throw new IllegalArgumentException("column " + column + " out of 0.." + (columns - 1));
            }
            RowCells rc = rowCells(table, row, epochDay);
            if (rc.add(column, delta)) {
                cells.increment();
                bytes.add(CELL_BYTES);
            }
        }

        /**
         * Adds one row's deltas summed beforehand (a group commit's {@code CellSums}, drained):
         * {@code sums[offset + c]} for every column {@code c} whose bit is set in {@code touched},
         * to the row whose key is {@code key[0, keyLength)}. The row is looked up once (by a probe
         * over the slice: nothing is allocated for a row already buffered; a new row's key is
         * copied) and the cell gauges move once, whatever number of events the sums stand for.
         */
        public void addRow(int table, byte[] key, int keyLength, int epochDay, long touched, long[] sums, int offset) {
            RowCells rc = rowCells(table, key, keyLength, epochDay);
            int fresh = 0;
            for (long bits = touched; bits != 0; bits &= bits - 1) {
                int column = Long.numberOfTrailingZeros(bits);
                if (column >= columns) {
                    throw new IllegalArgumentException("column " + column + " out of 0.." + (columns - 1));
                }
                if (rc.add(column, sums[offset + column])) {
                    fresh++;
                }
            }
            if (fresh > 0) {
                cells.add(fresh);
                bytes.add((long) fresh * CELL_BYTES);
            }
        }

        /** The buffered row of a slice of a reused buffer, added (its key copied) when new. */
        private RowCells rowCells(int table, byte[] key, int keyLength, int epochDay) {
            lastRow = null; // the slice's array names no row
            RowCells rc = lookup(table, key, keyLength, epochDay, true);
            markFirstAdd();
            return rc;
        }

        /**
         * The buffered row keyed by the caller's own array {@code row}, added (keeping that array)
         * when new; an event's metrics of one row arrive one after another with the same array, so
         * only the first of them looks the row up.
         */
        private RowCells rowCells(int table, byte[] row, int epochDay) {
            if (row != lastRow || table != lastTable) {
                lastCells = lookup(table, row, row.length, epochDay, false);
                lastRow = row;
                lastTable = table;
            }
            markFirstAdd();
            return lastCells;
        }

        /**
         * The row of {@code key[0, keyLength)}, found by the reused probe (nothing allocated for a
         * buffered row) or added: keyed by a copy of the slice when {@code copy}, else by
         * {@code key} itself.
         */
        private RowCells lookup(int table, byte[] key, int keyLength, int epochDay, boolean copy) {
            if (table != mapTable) {
                lastMap = target.computeIfAbsent(table, t -> new ConcurrentHashMap<>(Math.max(16, hints.getOrDefault(t, 0))));
                mapTable = table;
            }
            RowCells rc = lastMap.get(probe.set(table, key, keyLength));
            if (rc == null) {
                byte[] row = copy ? Arrays.copyOf(key, keyLength) : key;
                RowCells fresh = new RowCells(table, row, epochDay, columns);
                rc = lastMap.putIfAbsent(new RowId(table, row), fresh);
                if (rc == null) {
                    rc = fresh;
                    bytes.add(row.length + ROW_OVERHEAD_BYTES);
                }
            }
            return rc;
        }

        private void markFirstAdd() {
            if (firstAddMillis.get() == NO_ADD) {
                // Under the shared lock, so the time belongs to the generation this delta lands in.
                firstAddMillis.compareAndSet(NO_ADD, clock.millis());
            }
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                swapLock.readLock().unlock();
            }
        }
    }

    /** The buffered deltas of one row of {@code table} in the filling generation, if any (same terms as {@link #forEachRow}). */
    public java.util.Optional<RowCells> row(int table, byte[] row) {
        ConcurrentHashMap<RowId, RowCells> ofTable = rows.get(table);
        return ofTable == null ? java.util.Optional.empty() : java.util.Optional.ofNullable(ofTable.get(new RowId(table, row)));
    }

    /**
     * Visits every row of the generation filling now (the live read). Adders go on meanwhile: a
     * delta added before the call began is seen, a concurrent one may or may not be. Callers must
     * keep {@link #drainGeneration} from running meanwhile (the flusher's live lock does).
     */
    public void forEachRow(int table, java.util.function.Consumer<RowCells> visitor) {
        ConcurrentHashMap<RowId, RowCells> ofTable = rows.get(table);
        if (ofTable != null) {
            ofTable.values().forEach(visitor);
        }
    }

    /** Takes everything buffered so far; later adds go to a fresh generation. */
    public List<RowCells> drain() {
        return drainGeneration().rows();
    }

    /**
     * One drained generation: its rows and the clock time of its first add (null when nothing
     * was added). Every delta in {@code rows} was added at or after {@code firstAdd}, and every
     * delta added at or after the next generation's {@code firstAdd} is in a later generation:
     * the time is read and reset under the same lock that swaps the rows.
     */
    public record Generation(List<RowCells> rows, Instant firstAdd) {
    }

    /** As {@link #drain()}, with the generation's first-add time. */
    public Generation drainGeneration() {
        ConcurrentHashMap<Integer, ConcurrentHashMap<RowId, RowCells>> taken;
        long first;
        swapLock.writeLock().lock();
        try {
            first = firstAddMillis.getAndSet(NO_ADD);
            taken = rows;
            rows = new ConcurrentHashMap<>();
            Map<Integer, Integer> hints = new HashMap<>();
            taken.forEach((t, m) -> hints.put(t, m.size()));
            sizeHints = hints;
            cells.reset();
            bytes.reset();
        } finally {
            swapLock.writeLock().unlock();
        }
        reservations.signalSpace();
        List<RowCells> all = new ArrayList<>();
        taken.values().forEach(m -> all.addAll(m.values()));
        return new Generation(all, first == NO_ADD ? null : Instant.ofEpochMilli(first));
    }
}
