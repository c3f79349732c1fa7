package io.adreport.reconcile.job;

import io.adreport.schema.counting.CellSums;
import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.counting.CounterFanout;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * Turns day D's raw rows into expected counter deltas, one shuffle record per counter row
 * ({@link RowKeys}, its metric cells in one {@link RowCells}; addresses from {@link CounterCells},
 * shared with the live aggregator).
 *
 * <p>Counting: each raw row is one event (the raw key is the dedup identity, so a replay is the
 * same row); its deltas come from {@link CounterFanout}, the rules the live aggregator uses.
 * Join events (clicks, conversions) are held back and looked up in batches of Gets on the raw
 * table — {@link CounterCells#joinTargets}: the target's key for D and each of the
 * {@code lookbackDays} days before, one day per round of Gets for the events not attributed yet — so a click
 * whose impression arrived after it is attributed now; one whose target is still missing is
 * counted as unattributed.
 *
 * <p>Memory: deltas are summed per cell in {@link CellSums} (primitive sums per counter row,
 * nothing allocated per delta), bounded by {@code reconcile.map.buffer.cells}; when it is full it
 * is drained to the framework (and the combiner sums again), so a day with many distinct cells
 * costs more shuffle, never more heap. A bound above the task's distinct cells means one drain, at
 * the end: each row leaves the task once. Pending join events are bounded by
 * {@code reconcile.join.batch}.
 *
 * <p>View repair: when the job asks for it, each decoded event also feeds the task's share of the
 * device view repair ({@link TaskViewRepair}), which never fails the task.
 *
 * <p>Concurrency: one task thread owns every field. Failure: an HBase error fails the task and
 * the framework retries it; map output of a failed attempt is discarded, so nothing is counted
 * twice.
 */
final class RecountMapper extends Mapper<IntWritable, Result, ImmutableBytesWritable, RowCells> {

    private TableLayout layout;
    private RowKeyCodec keys;
    private CounterCells cells;
    private Instant endOfDay;
    private CellSums sums;
    private CounterCells.Scratch scratch;
    private final ImmutableBytesWritable outKey = new ImmutableBytesWritable();
    private final RowCells outValue = new RowCells();
    private final List<Event> pendingJoins = new ArrayList<>();
    private int joinBatch;
    private TaskConnections.Lease connection;
    private long[] eventsPerRollup;
    private boolean[] touched;
    private Context context;
    private TaskViewRepair views = TaskViewRepair.OFF;

    @Override
    protected void setup(Context ctx) {
        context = ctx;
        JobSettings job = JobSettings.from(ctx.getConfiguration());
        layout = job.layout();
        Cube cube = layout.cube();
        keys = new RowKeyCodec(cube);
        cells = new CounterCells(cube, keys);
        endOfDay = UtcDay.of(job.day()).end();
        sums = new CellSums(cells.columns(), Math.max(16, job.mapBufferCells() / Math.max(1, cells.columns())));
        scratch = cells.scratch();
        joinBatch = job.joinBatch();
        eventsPerRollup = new long[cube.rollups().size()];
        touched = new boolean[cube.rollups().size()];
        views = TaskViewRepair.open(ctx, job, this::connection);
    }

    @Override
    protected void map(IntWritable source, Result row, Context ctx) throws IOException, InterruptedException {
        raw(row);
    }

    private void raw(Result row) throws IOException, InterruptedException {
        Event e;
        try {
            e = RawEventCodec.fromResult(row);
        } catch (IllegalArgumentException ex) {
            context.getCounter(ReconcileCounter.MALFORMED).increment(1);
            return;
        }
        // The key must be the event's own key: same identity, same UTC day as its time.
        if (!Arrays.equals(keys.rawKey(e.type(), e.id(), e.ts()), row.getRow())) {
            context.getCounter(ReconcileCounter.MALFORMED).increment(1);
            return;
        }
        context.getCounter(ReconcileCounter.EVENTS_READ).increment(1);
        views.add(e);
        context.getCounter(ReconcileCounter.DUPLICATES).increment(RawEventCodec.duplicates(row));
        Instant arrival = RawEventCodec.arrival(row);
        if (arrival != null && !arrival.isBefore(endOfDay)) {
            context.getCounter(ReconcileCounter.LATE_EVENTS).increment(1);
        }
        if (cells.isJoinEvent(e)) {
            pendingJoins.add(e);
            if (pendingJoins.size() >= joinBatch) {
                resolveJoins();
            }
        } else {
            count(e, true);
        }
    }

    /** Looks up the targets of the pending join events in one batch and counts the events. */
    private void resolveJoins() throws IOException, InterruptedException {
        if (pendingJoins.isEmpty()) {
            return;
        }
        // Round k reads the k-th candidate (k days back) of the events not attributed yet: most
        // targets are found on the event's own day, so the older days cost few Gets.
        int n = pendingJoins.size();
        List<List<CounterCells.JoinTarget>> candidates = new ArrayList<>(n);
        Event[] attributed = new Event[n];
        int rounds = 0;
        for (Event e : pendingJoins) {
            List<CounterCells.JoinTarget> t = cells.joinTargets(e);
            candidates.add(t);
            rounds = Math.max(rounds, t.size());
        }
        try (Table raw = connection().getTable(layout.rawTable())) {
            for (int k = 0; k < rounds; k++) {
                List<Get> gets = new ArrayList<>(n);
                List<Integer> asking = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    if (attributed[i] == null && k < candidates.get(i).size()) {
                        gets.add(new Get(candidates.get(i).get(k).rawKey()).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE));
                        asking.add(i);
                    }
                }
                if (gets.isEmpty()) {
                    break;
                }
                Result[] found = raw.get(gets);
                for (int j = 0; j < found.length; j++) {
                    Result r = found[j];
                    if (r != null && !r.isEmpty()) {
                        int i = asking.get(j);
                        try {
                            attributed[i] = pendingJoins.get(i).withDimensions(RawEventCodec.fromResult(r).dimensions());
                        } catch (IllegalArgumentException malformedTarget) {
                            // counted as malformed by its own day's run; an older candidate may still match
                        }
                    }
                }
            }
        }
        for (int i = 0; i < n; i++) {
            boolean found = attributed[i] != null;
            context.getCounter(found ? ReconcileCounter.ATTRIBUTED : ReconcileCounter.UNATTRIBUTED).increment(1);
            count(found ? attributed[i] : pendingJoins.get(i), found);
        }
        pendingJoins.clear();
    }

    private void count(Event e, boolean attributed) throws IOException, InterruptedException {
        Arrays.fill(touched, false);
        try {
            cells.forEachRow(e, attributed, scratch, this::add);
        } catch (SpillFailed f) {
            throw f.failure;
        }
        for (int i = 0; i < touched.length; i++) {
            if (touched[i]) {
                eventsPerRollup[i]++;
            }
        }
    }

    private void add(int table, byte[] key, int keyLength, int epochDay, int[] columns, long[] deltas, int n) {
        touched[table] = true;
        if (sums.full()) {
            try {
                spill();
            } catch (IOException | InterruptedException ex) {
                throw new SpillFailed(ex);
            }
        }
        sums.addRow(table, key, keyLength, columns, deltas, n);
    }

    private void spill() throws IOException, InterruptedException {
        sums.drain((table, row, length, touched, values, offset) -> {
            outKey.set(RowKeys.encode(table, row, length));
            outValue.clear();
            for (long m = touched; m != 0; m &= m - 1) {
                int column = Long.numberOfTrailingZeros(m);
                outValue.addExpected(column, values[offset + column]);
            }
            context.write(outKey, outValue);
        });
    }

    @Override
    protected void cleanup(Context ctx) throws IOException, InterruptedException {
        try {
            try {
                resolveJoins();
                spill();
            } finally {
                views.finish();
            }
            List<Rollup> rollups = layout.cube().rollups();
            for (int i = 0; i < rollups.size(); i++) {
                ctx.getCounter(Counters.rollupGroup(rollups.get(i).name()), Counters.EVENTS).increment(eventsPerRollup[i]);
            }
        } finally {
            if (connection != null) {
                connection.close();
            }
        }
    }

    private Connection connection() throws IOException {
        if (connection == null) {
            connection = TaskConnections.open(context.getConfiguration());
        }
        return connection.connection();
    }

    /** Carries a checked spill failure out of the fan-out callback. */
    private static final class SpillFailed extends RuntimeException {
        final IOException failure;

        SpillFailed(Exception e) {
            super(e);
            this.failure = e instanceof IOException io ? io : new IOException(e);
        }
    }
}
