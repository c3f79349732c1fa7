package io.adreport.reconcile.topn;

import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.hbase.Batches;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import java.io.IOException;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Writes the ranked top-N index ({@link RankedIndexCodec}) of one reconciled UTC day, from the
 * day's exact DAY counter rows, once the reconcile job has corrected them. For every rollup that
 * stores DAY rows and has dimensions, every stored metric gets one list of all series and, when
 * the rollup has a tenant, one list per tenant; a series is listed where its day value is
 * positive (the reader bounds an unlisted series' value by the list's last value, or 0).
 *
 * <p><b>Write order (a reader never sees half an index).</b> Per rollup: (1) read the day's
 * pointer, generation g (0 when none); (2) write every entry of generation g+1 through a
 * {@link BufferedMutator} and flush; (3) point the day at g+1; (4) delete generations below g
 * (once every rollup's pointer is written: {@link StaleEntries}).
 * Readers read the pointer first and only the generation it names, so before (3) they read g,
 * after it g+1, both complete. Generation g itself is kept until the next re-run, so a reader
 * that read the pointer just before (3) still finds its whole list. A crash before (3) leaves
 * unreferenced entries of g+1, which the next run overwrites (same keys) or deletes. Re-running
 * a day (late events) therefore replaces its index: no old entry is read again.
 *
 * <p><b>Unchanged lists are kept.</b> The pointer also records its generation's content digest
 * ({@link Digest}, column {@code t:h}). When every list of a day has one, the reconcile job's
 * reduce tasks only compute the digests of the lists they would write, and the reconciler calls
 * {@link #rewrite} for the rollups whose digest changed: leftovers of g+1 swept (through the WAL),
 * g+1 written from a scan of the DAY counter rows, published, g-1 deleted. A re-run in which
 * nothing differs writes and deletes no entry, and the month lists built from the day's
 * generations stay current.
 *
 * <p><b>Month lists.</b> {@link #writeMonthIfComplete} writes the month's lists once every day
 * of the UTC month is {@code reconciled}: the exact month totals of every series (the sum of its
 * 28–31 DAY counter rows), ranked like a day's lists, plus one series row per series for random
 * access, in the same order: new generation, then the month pointer (which records the
 * generation of every day list it was built from), then older generations deleted. A day of the
 * month reconciled again changes that day's generation, so readers ignore the month (and merge
 * the day lists) until this rewrites it, which the reconciler does right after the day. Sums are
 * built one salt bucket at a time (a series lives in one bucket every day), so memory holds
 * 1/{@code saltBuckets} of the month's series, not all of them.
 *
 * <p><b>One row builder.</b> {@link #dayRows}, {@link #monthRows} and the pointer builders are the
 * only places that turn values into index rows; the Put path here and bulk loaders (HFiles) both
 * call them, so every path writes the same rows.
 *
 * <p><b>Concurrency.</b> Called by the {@code Reconciler} under its lock, one day at a time;
 * holds nothing between calls. Memory is bounded by the mutator's write buffer and the scan
 * caching (and, for a month, one salt bucket's series).
 *
 * <p><b>Failure.</b> An HBase error is thrown; the reconciler then leaves the day {@code closing}
 * (it is not marked reconciled) and the next run writes the index again.
 */
public final class RankedIndexWriter {
    private static final byte[] F = TableLayout.RANKED_FAMILY;
    private static final byte[] VALUE = RankedIndexCodec.VALUE_QUALIFIER;
    private static final byte[] GENERATION = RankedIndexCodec.GENERATION_QUALIFIER;
    private static final byte[] DAY_GENERATIONS = RankedIndexCodec.DAY_GENERATIONS_QUALIFIER;
    private static final byte[] DIGEST = RankedIndexCodec.DIGEST_QUALIFIER;
    private static final int SCAN_CACHING = 1000;
    /** Entry Puts per {@link Table#batch} call. */
    private static final int BATCH = 2000;

    /** What one day's (or month's, then {@code day} is its first day) index write did. */
    public record Written(LocalDate day, long entries, long deleted) {
    }

    /**
     * A day's published list of one rollup: its generation (0: none) and that generation's
     * content digest (null: written before digests were recorded, or no generation).
     */
    public record Published(long generation, Long digest) {
    }

    /**
     * A sink that sums the content digest ({@link RankedIndexCodec#entryDigest}) of the entry rows
     * it passes on to {@code out} (a null {@code out}: digest only, nothing written). Wraps the
     * sink of {@link #dayRows}, whose cells are all entry rows.
     */
    public static final class Digest implements RowSink {
        private final RowSink out;
        private long sum;

        public Digest(RowSink out) {
            this.out = out;
        }

        @Override
        public void put(byte[] row, byte[] qualifier, byte[] value) throws IOException {
            sum += RankedIndexCodec.entryDigest(row, value);
            if (out != null) {
                out.put(row, qualifier, value);
            }
        }

        public long value() {
            return sum;
        }
    }

    /** Receives index cells: row, qualifier (family {@code t}), value. */
    @FunctionalInterface
    public interface RowSink {
        void put(byte[] row, byte[] qualifier, byte[] value) throws IOException;
    }

    private final Connection connection;
    private final TableLayout layout;
    private final RowKeyCodec codec;
    private final StaleEntries staleEntries;

    /** Superseded entries go as Deletes, whatever their number (tests, benchmarks). */
    public RankedIndexWriter(Connection connection, TableLayout layout) {
        this(connection, layout, -1);
    }

    /**
     * {@code bulkMinDeletes}: superseded entries of one sweep from which they are deleted by
     * bulk-loaded markers ({@code reconcile.index.bulk.min.entries}; 0 = always, -1 = never).
     */
    public RankedIndexWriter(Connection connection, TableLayout layout, int bulkMinDeletes) {
        this.connection = connection;
        this.layout = layout;
        this.codec = new RowKeyCodec(layout.cube());
        this.staleEntries = new StaleEntries(connection, layout.rankedIndexTable(), bulkMinDeletes);
    }

    /** True when the index can list {@code rollup}: it stores DAY rows and has dimensions. */
    public static boolean indexes(Rollup rollup) {
        return rollup.granularities().contains(Granularity.DAY) && !rollup.dimensions().isEmpty();
    }

    /** Scans the day's DAY counter rows of every indexed rollup and writes, publishes and prunes their lists. */
    public Written write(LocalDate day) throws IOException {
        return rewrite(day, published(day));
    }

    /**
     * Writes the next generation of {@code rollups}' lists of {@code day} (rollup name to its
     * published list) by scanning the day's DAY counter rows, then publishes and prunes them: for
     * a pass whose job only computed digests ({@link #published}) and found these rollups' lists
     * changed. Leftovers of the generation being written (a pass that died before its publish)
     * are swept first, so the published generation holds exactly this pass's entries.
     */
    public Written rewrite(LocalDate day, Map<String, Published> rollups) throws IOException {
        Map<String, Long> next = nextGenerations(rollups);
        Map<String, Long> digests = new LinkedHashMap<>();
        long entries = 0;
        sweepLeftovers(day, next);
        for (Map.Entry<String, Long> e : next.entrySet()) {
            Rollup r = layout.cube().rollup(e.getKey()).orElseThrow();
            long[] digest = new long[1];
            entries += writeEntries(r, day, e.getValue(), digest);
            digests.put(r.name(), digest[0]);
        }
        return publish(day, next, digests, entries);
    }

    /**
     * Deletes (through the WAL) whatever entries of the generations about to be written
     * ({@code next}, by rollup name) exist: leftovers of a pass that died before it published
     * them, whose keys the new entries would not all overwrite. Cheap when there are none (one
     * empty range scan per rollup); the writer calls it before it writes {@code next}.
     */
    public long sweepLeftovers(LocalDate day, Map<String, Long> next) throws IOException {
        List<KeyRange> leftovers = new ArrayList<>();
        next.forEach((name, gen) -> leftovers.add(
                RankedIndexCodec.generationsRange(layout.cube().rollup(name).orElseThrow(), day, gen, gen + 1)));
        return staleEntries.deleteLogged(leftovers);
    }

    /** What each indexed rollup has published for {@code day}, by rollup name. */
    public Map<String, Published> published(LocalDate day) throws IOException {
        Map<String, Published> out = new LinkedHashMap<>();
        try (Table t = connection.getTable(layout.rankedIndexTable())) {
            for (Rollup r : layout.cube().rollups()) {
                if (indexes(r)) {
                    Result res = t.get(new Get(RankedIndexCodec.pointerKey(r, day)).addColumn(F, GENERATION).addColumn(F, DIGEST));
                    byte[] g = res.getValue(F, GENERATION);
                    long gen = g == null ? 0 : Bytes.toLong(g);
                    out.put(r.name(), new Published(gen, RankedIndexCodec.digestOf(gen, res.getValue(F, DIGEST))));
                }
            }
        }
        return out;
    }

    /**
     * The generation each rollup's next list gets (its {@link #published} one + 1), by rollup
     * name: also for a writer that builds the entries elsewhere (the reconcile job's reduce
     * tasks, with {@link #dayRows}) and then calls {@link #publish}.
     */
    public static Map<String, Long> nextGenerations(Map<String, Published> published) {
        Map<String, Long> next = new LinkedHashMap<>();
        published.forEach((name, p) -> next.put(name, p.generation() + 1));
        return next;
    }

    /**
     * Steps (3) and (4) once every entry of {@code next}'s generations is written: points the day
     * at them, with their content digests ({@code digests}, by rollup name), and deletes the
     * generations below the previous one.
     */
    public Written publish(LocalDate day, Map<String, Long> next, Map<String, Long> digests, long entries) throws IOException {
        List<KeyRange> stale = new ArrayList<>();
        for (Map.Entry<String, Long> e : next.entrySet()) {
            Rollup r = layout.cube().rollup(e.getKey()).orElseThrow();
            publish(r, day, e.getValue(), digests.get(r.name()));
            long keepFrom = e.getValue() - 1; // the generation published until now: a reader may still be on it
            if (keepFrom > 0) {
                stale.add(RankedIndexCodec.generationsRange(r, day, 0, keepFrom));
            }
        }
        return new Written(day, entries, staleEntries.delete(stale));
    }

    /** The day's published generation, 0 when it has none. */
    long generation(Rollup r, LocalDate day) throws IOException {
        try (Table t = connection.getTable(layout.rankedIndexTable())) {
            Result res = t.get(new Get(RankedIndexCodec.pointerKey(r, day)).addColumn(F, GENERATION));
            byte[] v = res.getValue(F, GENERATION);
            return v == null ? 0 : Bytes.toLong(v);
        }
    }

    private long writeEntries(Rollup r, LocalDate day, long gen, long[] digest) throws IOException {
        List<Metric> metrics = layout.cube().metrics();
        byte[][] qualifiers = new byte[metrics.size()][];
        for (int i = 0; i < qualifiers.length; i++) {
            qualifiers[i] = Bytes.toBytes(metrics.get(i).name());
        }
        List<String> names = metrics.stream().map(Metric::name).toList();
        long n = 0;
        // Puts by Table.batch of BATCH, as the reduce tasks write them: a BufferedMutator walks its
        // whole queue on every Put once its buffer is full
        List<Put> pending = new ArrayList<>(BATCH);
        try (Table out = connection.getTable(layout.rankedIndexTable()); Table counters = connection.getTable(layout.counterTable(r))) {
            Digest sink = new Digest((row, q, v) -> {
                pending.add(new Put(row).addColumn(F, q, v));
                if (pending.size() >= BATCH) {
                    Batches.send(out, pending, "the ranked index");
                }
            });
            for (int salt = 0; salt < codec.saltBuckets(); salt++) {
                KeyRange range = codec.counterDayRange(salt, Granularity.DAY, day);
                Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(SCAN_CACHING)
                        .addFamily(TableLayout.COUNTER_FAMILY);
                try (ResultScanner rs = counters.getScanner(scan)) {
                    for (Result row : rs) {
                        CounterKey key = codec.parseCounterKey(row.getRow());
                        n += dayRows(r, day, gen, names, key.values(), values(row, qualifiers), sink);
                    }
                }
            }
            Batches.send(out, pending, "the ranked index");
            digest[0] = sink.value();
        }
        return n;
    }

    private static long[] values(Result row, byte[][] qualifiers) {
        long[] out = new long[qualifiers.length];
        CounterValues.addTo(row, qualifiers, out); // base and writer cells
        return out;
    }

    /**
     * The entry rows of one series on one day: for each metric ({@code metrics[i]} has value
     * {@code values[i]}) with a positive value, one entry in the every-series list and, when the
     * rollup has a tenant, one in the tenant's list. Returns the number of entries.
     */
    public static long dayRows(Rollup r, LocalDate day, long gen, List<String> metrics, List<String> series, long[] values,
                               RowSink sink) throws IOException {
        return entryRows(r, metrics, series, values, sink,
                (metric, tenant, v) -> RankedIndexCodec.entryKey(r, day, gen, metric, tenant, v, series));
    }

    /** The key of one list entry: a metric's list, every series (tenant null) or one tenant's. */
    @FunctionalInterface
    private interface EntryKey {
        byte[] of(String metric, String tenant, long value);
    }

    /**
     * One entry per positive value in the every-series list and, when the rollup has a tenant,
     * one in the tenant's list. Returns the number of entries.
     */
    private static long entryRows(Rollup r, List<String> metrics, List<String> series, long[] values, RowSink sink,
                                  EntryKey key) throws IOException {
        long n = 0;
        for (int i = 0; i < values.length; i++) {
            long v = values[i];
            if (v <= 0) {
                continue;
            }
            byte[] value = Bytes.toBytes(v);
            sink.put(key.of(metrics.get(i), null, v), VALUE, value);
            n++;
            if (r.hasTenant()) {
                sink.put(key.of(metrics.get(i), series.get(0), v), VALUE, value);
                n++;
            }
        }
        return n;
    }

    /**
     * The rows of one series in a month: entries as {@link #dayRows} for the month totals, then
     * the series row's cells (one per positive metric, in qualifier byte order). Returns the
     * number of entries.
     */
    public static long monthRows(Rollup r, YearMonth month, long gen, List<String> metrics, List<String> series, long[] totals,
                                 RowSink sink) throws IOException {
        Integer[] order = new Integer[totals.length];
        for (int i = 0; i < totals.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Bytes.compareTo(Bytes.toBytes(metrics.get(a)), Bytes.toBytes(metrics.get(b))));
        long n = entryRows(r, metrics, series, totals, sink,
                (metric, tenant, v) -> RankedIndexCodec.monthEntryKey(r, month, gen, metric, tenant, v, series));
        byte[] row = null;
        for (int i : order) {
            if (totals[i] > 0) {
                row = row == null ? RankedIndexCodec.monthSeriesKey(r, month, gen, series) : row;
                sink.put(row, Bytes.toBytes(metrics.get(i)), Bytes.toBytes(totals[i]));
            }
        }
        return n;
    }

    /**
     * The day pointer's cells, naming generation {@code gen} and its content digest (the
     * {@link Digest} of its entries; null: none is recorded, and the next pass writes a new
     * generation whatever it finds).
     */
    public static void dayPointer(Rollup r, LocalDate day, long gen, Long digest, RowSink sink) throws IOException {
        byte[] row = RankedIndexCodec.pointerKey(r, day);
        sink.put(row, GENERATION, Bytes.toBytes(gen)); // g before h: qualifier order
        if (digest != null) {
            sink.put(row, DIGEST, RankedIndexCodec.encodeDigest(gen, digest));
        }
    }

    /** The month pointer's cells: generation {@code gen}, built from day lists of {@code dayGenerations}. */
    public static void monthPointer(Rollup r, YearMonth month, long gen, long[] dayGenerations, RowSink sink) throws IOException {
        byte[] row = RankedIndexCodec.monthPointerKey(r, month);
        sink.put(row, DAY_GENERATIONS, RankedIndexCodec.encodeDayGenerations(dayGenerations)); // d before g: qualifier order
        sink.put(row, GENERATION, Bytes.toBytes(gen));
    }

    private void publish(Rollup r, LocalDate day, long gen, Long digest) throws IOException {
        try (Table t = connection.getTable(layout.rankedIndexTable())) {
            Put p = new Put(RankedIndexCodec.pointerKey(r, day));
            dayPointer(r, day, gen, digest, (row, q, v) -> p.addColumn(F, q, v));
            t.put(p);
        }
    }

    /**
     * Writes the lists of {@code day}'s UTC month when every day of it is {@code reconciled}
     * (and each indexed rollup has every day's list); empty otherwise.
     */
    public Optional<Written> writeMonthIfComplete(LocalDate day, DayStatusStore meta) throws IOException {
        YearMonth month = YearMonth.from(day);
        LocalDate first = month.atDay(1);
        LocalDate last = month.atEndOfMonth();
        Map<LocalDate, DayState> states = meta.days(first, last);
        for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
            DayState s = states.get(d);
            if (s == null || s.status() != DayStatus.RECONCILED) {
                return Optional.empty();
            }
        }
        long entries = 0;
        long deleted = 0;
        for (Rollup r : layout.cube().rollups()) {
            if (!indexes(r)) {
                continue;
            }
            long[] dayGens = new long[month.lengthOfMonth()];
            for (int i = 0; i < dayGens.length; i++) {
                dayGens[i] = generation(r, first.plusDays(i));
                if (dayGens[i] == 0) {
                    return Optional.empty(); // a day reconciled before the index existed: its next run writes both
                }
            }
            MonthPointer published = monthPointer(r, month);
            if (Arrays.equals(published.dayGenerations(), dayGens)) {
                continue; // every day list it was built from is still the published one: the month lists are current
            }
            long gen = published.generation() + 1;
            entries += writeMonthEntries(r, month, gen);
            try (Table t = connection.getTable(layout.rankedIndexTable())) {
                Put p = new Put(RankedIndexCodec.monthPointerKey(r, month));
                monthPointer(r, month, gen, dayGens, (row, q, v) -> p.addColumn(F, q, v));
                t.put(p);
            }
            if (gen > 2) {
                deleted += staleEntries.delete(RankedIndexCodec.monthGenerationsRanges(r, month, 0, gen - 1));
            }
        }
        return Optional.of(new Written(first, entries, deleted));
    }

    /** A month pointer: the published generation (0: none) and the day generations it was built from (null: none). */
    private record MonthPointer(long generation, long[] dayGenerations) {
    }

    private MonthPointer monthPointer(Rollup r, YearMonth month) throws IOException {
        try (Table t = connection.getTable(layout.rankedIndexTable())) {
            Result res = t.get(new Get(RankedIndexCodec.monthPointerKey(r, month)).addColumn(F, GENERATION).addColumn(F, DAY_GENERATIONS));
            byte[] g = res.getValue(F, GENERATION);
            byte[] d = res.getValue(F, DAY_GENERATIONS);
            return new MonthPointer(g == null ? 0 : Bytes.toLong(g), d == null ? null : RankedIndexCodec.decodeDayGenerations(d));
        }
    }

    private long writeMonthEntries(Rollup r, YearMonth month, long gen) throws IOException {
        List<Metric> metrics = layout.cube().metrics();
        List<String> names = metrics.stream().map(Metric::name).toList();
        byte[][] qualifiers = names.stream().map(Bytes::toBytes).toArray(byte[][]::new);
        long n = 0;
        try (BufferedMutator out = mutator(); Table counters = connection.getTable(layout.counterTable(r))) {
            RowSink sink = (row, q, v) -> out.mutate(new Put(row).addColumn(F, q, v));
            for (int salt = 0; salt < codec.saltBuckets(); salt++) {
                Map<List<String>, long[]> sums = new HashMap<>();
                for (LocalDate d = month.atDay(1); !d.isAfter(month.atEndOfMonth()); d = d.plusDays(1)) {
                    KeyRange range = codec.counterDayRange(salt, Granularity.DAY, d);
                    Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop()).setCaching(SCAN_CACHING)
                            .addFamily(TableLayout.COUNTER_FAMILY);
                    try (ResultScanner rs = counters.getScanner(scan)) {
                        for (Result row : rs) {
                            long[] v = values(row, qualifiers);
                            long[] sum = sums.computeIfAbsent(codec.parseCounterKey(row.getRow()).values(), k -> new long[v.length]);
                            for (int i = 0; i < v.length; i++) {
                                sum[i] += v[i];
                            }
                        }
                    }
                }
                for (Map.Entry<List<String>, long[]> e : sums.entrySet()) {
                    n += monthRows(r, month, gen, names, e.getKey(), e.getValue(), sink);
                }
            }
            out.flush();
        } catch (RetriesExhaustedWithDetailsException e) {
            throw new IOException("writing the ranked month index of " + r.name() + " for " + month + " failed: " + e.getMessage(), e);
        }
        return n;
    }

    private BufferedMutator mutator() throws IOException {
        return connection.getBufferedMutator(new BufferedMutatorParams(layout.rankedIndexTable()));
    }
}
