package io.adreport.reconcile.job;

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
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * Turns day D's raw rows into expected counter deltas and D's counter rows into stored values,
 * both keyed by cell ({@link CellKeys}; addresses from {@link CounterCells}, shared with the live
 * aggregator).
 *
 * <p>Counting: each raw row is one event (the raw key is the dedup identity, so a replay is the
 * same row); its deltas come from {@link CounterFanout}, the rules the live aggregator uses.
 * Join events (clicks, conversions) are held back and looked up in batches of Gets on the raw
 * table — {@link CounterCells#joinTargets}: the target's key for D and each of the
 * {@code lookbackDays} days before — so a click
 * whose impression arrived after it is attributed now; one whose target is still missing is
 * counted as unattributed.
 *
 * <p>Memory: deltas are summed per cell in a map bounded by {@code reconcile.map.buffer.cells};
 * when it is full it is spilled to the framework (and the combiner sums again), so a day with
 * many distinct cells costs more shuffle, never more heap. Pending join events are bounded by
 * {@code reconcile.join.batch}.
 *
 * <p>Concurrency: one task thread owns every field. Failure: an HBase error fails the task and
 * the framework retries it; map output of a failed attempt is discarded, so nothing is counted
 * twice.
 */
final class RecountMapper extends Mapper<IntWritable, Result, ImmutableBytesWritable, CellValue> {

    private TableLayout layout;
    private RowKeyCodec keys;
    private CounterCells cells;
    private Instant endOfDay;
    private final Map<ByteBuffer, CellValue> buffer = new HashMap<>();
    private int bufferLimit;
    private final List<Event> pendingJoins = new ArrayList<>();
    private int joinBatch;
    private Connection connection;
    private long[] eventsPerRollup;
    private boolean[] touched;
    private Context context;

    @Override
    protected void setup(Context ctx) {
        context = ctx;
        JobSettings job = JobSettings.from(ctx.getConfiguration());
        layout = job.layout();
        Cube cube = layout.cube();
        keys = new RowKeyCodec(cube);
        cells = new CounterCells(cube, keys);
        endOfDay = UtcDay.of(job.day()).end();
        bufferLimit = job.mapBufferCells();
        joinBatch = job.joinBatch();
        eventsPerRollup = new long[cube.rollups().size()];
        touched = new boolean[cube.rollups().size()];
    }

    @Override
    protected void map(IntWritable source, Result row, Context ctx) throws IOException, InterruptedException {
        if (source.get() == DaySplit.RAW) {
            raw(row);
        } else {
            stored(source.get(), row, ctx);
        }
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
        List<Get> gets = new ArrayList<>(pendingJoins.size() * 2);
        int[] firstGet = new int[pendingJoins.size() + 1];
        for (int i = 0; i < pendingJoins.size(); i++) {
            firstGet[i] = gets.size();
            for (CounterCells.JoinTarget t : cells.joinTargets(pendingJoins.get(i))) {
                gets.add(new Get(t.rawKey()).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE));
            }
        }
        firstGet[pendingJoins.size()] = gets.size();
        Result[] found;
        try (Table raw = connection().getTable(layout.rawTable())) {
            found = raw.get(gets);
        }
        for (int i = 0; i < pendingJoins.size(); i++) {
            Event e = pendingJoins.get(i);
            Event attributed = null;
            for (int k = firstGet[i]; k < firstGet[i + 1] && attributed == null; k++) {
                Result r = found[k];
                if (r != null && !r.isEmpty()) {
                    try {
                        attributed = e.withDimensions(RawEventCodec.fromResult(r).dimensions());
                    } catch (IllegalArgumentException malformedTarget) {
                        // counted as malformed by its own day's run; this event stays unattributed
                    }
                }
            }
            context.getCounter(attributed != null ? ReconcileCounter.ATTRIBUTED : ReconcileCounter.UNATTRIBUTED).increment(1);
            count(attributed != null ? attributed : e, attributed != null);
        }
        pendingJoins.clear();
    }

    private void count(Event e, boolean attributed) throws IOException, InterruptedException {
        Arrays.fill(touched, false);
        try {
            cells.forEach(e, attributed, this::add);
        } catch (SpillFailed f) {
            throw f.failure;
        }
        for (int i = 0; i < touched.length; i++) {
            if (touched[i]) {
                eventsPerRollup[i]++;
            }
        }
    }

    private void add(int table, byte[] row, int epochDay, int column, long delta) {
        touched[table] = true;
        byte[] cell = CellKeys.encode(table, row, cells.qualifier(column));
        buffer.computeIfAbsent(ByteBuffer.wrap(cell), k -> new CellValue()).addExpected(delta);
        if (buffer.size() >= bufferLimit) {
            try {
                spill();
            } catch (IOException | InterruptedException ex) {
                throw new SpillFailed(ex);
            }
        }
    }

    private void spill() throws IOException, InterruptedException {
        for (Map.Entry<ByteBuffer, CellValue> en : buffer.entrySet()) {
            context.write(new ImmutableBytesWritable(en.getKey().array()), en.getValue());
        }
        buffer.clear();
    }

    private void stored(int rollup, Result row, Context ctx) throws IOException, InterruptedException {
        ctx.getCounter(ReconcileCounter.COUNTER_ROWS_READ).increment(1);
        for (Cell c : row.rawCells()) {
            int column = cells.column(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength());
            if (column < 0) {
                ctx.getCounter(ReconcileCounter.FOREIGN_CELLS).increment(1);
                continue;
            }
            CellValue v;
            if (c.getValueLength() == Bytes.SIZEOF_LONG) {
                v = CellValue.stored(Bytes.toLong(c.getValueArray(), c.getValueOffset()));
            } else {
                ctx.getCounter(ReconcileCounter.DAMAGED_CELLS).increment(1);
                v = CellValue.damagedCell();
            }
            ctx.write(new ImmutableBytesWritable(CellKeys.encode(rollup, row.getRow(), cells.qualifier(column))), v);
        }
    }

    @Override
    protected void cleanup(Context ctx) throws IOException, InterruptedException {
        try {
            resolveJoins();
            spill();
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
            connection = ConnectionFactory.createConnection(context.getConfiguration());
        }
        return connection;
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
