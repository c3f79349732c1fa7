package io.adreport.reconcile.job;

import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Compares each cell's expected value (the recount) with its stored value and writes only the
 * cells that differ: a Put of the exact value, encoded as {@code Increment} stores it
 * ({@link Bytes#toBytes(long)}, 8 bytes big-endian), or a Delete of a cell that no event of the
 * day counts in. An equal cell is not written, so a second run over unchanged data writes none.
 *
 * <p>Stored values are not shuffled: this task owns the counter salt buckets
 * {@link CellPartitioner} sends it, reads their stored cells of the day with {@link StoredCells}
 * in key order and merges them with the sorted keys it receives — a stored cell before the
 * current key has no expected value (deleted), one equal to it is compared, and the rest after
 * the last key are deleted in {@link #cleanup}.
 *
 * <p><b>Two write paths, chosen per task by its number of corrections</b>
 * ({@code reconcile.bulk.min.cells} = N). The task holds its first corrections in memory (at most
 * N, bounded by the setting's range). If it ends with fewer than N, they are written as Puts and
 * Deletes to {@code MultiTableOutputFormat} (key = counter table name): few corrections, no file
 * or load overhead. When the N-th arrives, the task switches to {@link BulkCorrections}: the held
 * ones and all later ones go into HFiles, loaded at the end of the task (N = 0: from the first
 * correction; N = -1: never). Either way a task's corrections go by one path only. Nothing is
 * written in a dry run. A bulk-loaded cell's timestamp is {@code max(task start, stored cell's
 * timestamp + 1)} on HBase's clock ({@link EnvironmentEdgeManager}, not the job's injected
 * clock: these are cell versions compared with the region servers' own), so it is newer than the
 * live cell it replaces.
 *
 * <p>Figures are kept per rollup in task-local arrays and published as job counters in
 * {@link #cleanup}; the task's maximum single-cell drift is its own counter (see {@link Counters}).
 */
final class CellReducer extends Reducer<ImmutableBytesWritable, CellValue, ImmutableBytesWritable, Mutation> {
    private final CellValue merged = new CellValue();
    private List<Rollup> rollups;
    private CounterCells cells;
    private ImmutableBytesWritable[] tables;
    private boolean dryRun;
    private Connection connection;
    private StoredCells stored;
    private long[] checked;
    private long[] corrected;
    private long[] deleted;
    private long[] drift;
    private long[] maxDrift;
    private LocalDate day;
    private TableLayout layout;
    private int bulkMinCells;
    private long taskStart;
    private final List<Correction> held = new ArrayList<>();
    private BulkCorrections bulk;

    /** A correction held while the task decides its write path. */
    private record Correction(int rollup, byte[] row, int column, long value, boolean delete, long timestamp) {
    }

    @Override
    protected void setup(Context ctx) throws IOException {
        JobSettings job = JobSettings.from(ctx.getConfiguration());
        layout = job.layout();
        day = job.day();
        dryRun = job.dryRun();
        bulkMinCells = job.bulkMinCells();
        taskStart = EnvironmentEdgeManager.currentTime();
        rollups = layout.cube().rollups();
        cells = new CounterCells(layout.cube(), new RowKeyCodec(layout.cube()));
        int n = rollups.size();
        tables = new ImmutableBytesWritable[n];
        for (int i = 0; i < n; i++) {
            tables[i] = new ImmutableBytesWritable(layout.counterTable(rollups.get(i)).getName());
        }
        checked = new long[n];
        corrected = new long[n];
        deleted = new long[n];
        drift = new long[n];
        maxDrift = new long[n];
        connection = ConnectionFactory.createConnection(ctx.getConfiguration());
        stored = new StoredCells(connection, layout, cells, job.day(), ctx.getTaskAttemptID().getTaskID().getId(),
                ctx.getNumReduceTasks(), ctx.getCounter(ReconcileCounter.COUNTER_ROWS_READ),
                ctx.getCounter(ReconcileCounter.FOREIGN_CELLS), ctx.getCounter(ReconcileCounter.DAMAGED_CELLS));
    }

    @Override
    protected void reduce(ImmutableBytesWritable key, Iterable<CellValue> values, Context ctx) throws IOException, InterruptedException {
        byte[] k = key.get();
        int off = key.getOffset();
        int len = key.getLength();
        while (stored.key() != null && Bytes.compareTo(stored.key(), 0, stored.key().length, k, off, len) < 0) {
            settle(stored.key(), 0, stored.key().length, stored.value(), ctx);
            stored.advance();
        }
        merged.clear();
        for (CellValue v : values) {
            merged.merge(v);
        }
        if (stored.key() != null && Bytes.equals(stored.key(), 0, stored.key().length, k, off, len)) {
            merged.merge(stored.value());
            stored.advance();
        }
        settle(k, off, len, merged, ctx);
    }

    /** Expected vs stored for one cell; writes the correction when they differ. */
    private void settle(byte[] k, int off, int len, CellValue cell, Context ctx) throws IOException, InterruptedException {
        int rollup = CellKeys.rollup(k, off);
        long expected = cell.expected();
        long storedValue = cell.stored();
        checked[rollup]++;
        boolean delete = expected == 0 && cell.exists();
        boolean put = expected != 0 && (!cell.exists() || cell.damaged() || storedValue != expected);
        if (!delete && !put) {
            return;
        }
        long d = Math.abs(expected - storedValue);
        corrected[rollup]++;
        drift[rollup] += d;
        maxDrift[rollup] = Math.max(maxDrift[rollup], d);
        if (delete) {
            deleted[rollup]++;
        }
        if (dryRun) {
            return;
        }
        byte[] row = CellKeys.row(k, off, len);
        int column = CellKeys.column(k, off, len);
        long timestamp = Math.max(taskStart, cell.exists() ? cell.timestamp() + 1 : 0);
        if (bulk != null) {
            bulk.add(rollup, row, column, expected, delete, timestamp);
        } else if (bulkMinCells < 0) {
            ctx.write(tables[rollup], mutation(row, column, expected, delete));
        } else {
            held.add(new Correction(rollup, row, column, expected, delete, timestamp));
            if (held.size() >= Math.max(1, bulkMinCells)) {
                bulk = new BulkCorrections(ctx.getConfiguration(), connection, layout, cells,
                        new Path(new Path(ctx.getConfiguration().get(JobSettings.BULK_DIR)), ctx.getTaskAttemptID().toString()),
                        ctx.getTaskAttemptID().toString());
                for (Correction c : held) {
                    bulk.add(c.rollup(), c.row(), c.column(), c.value(), c.delete(), c.timestamp());
                }
                held.clear();
            }
        }
    }

    private Mutation mutation(byte[] row, int column, long expected, boolean delete) {
        byte[] qualifier = cells.qualifier(column);
        return delete
                ? new Delete(row).addColumns(TableLayout.COUNTER_FAMILY, qualifier)
                : new Put(row).addColumn(TableLayout.COUNTER_FAMILY, qualifier, Bytes.toBytes(expected));
    }

    /** The held corrections as Puts/Deletes, or the task's HFiles loaded; returns the cells bulk-loaded. */
    private long writeCorrections(Context ctx) throws IOException, InterruptedException {
        if (bulk == null) {
            for (Correction c : held) {
                ctx.write(tables[c.rollup()], mutation(c.row(), c.column(), c.value(), c.delete()));
            }
            held.clear();
            return 0;
        }
        try (BulkCorrections b = bulk) {
            b.load(day);
            ctx.getCounter(ReconcileCounter.HFILES_LOADED).increment(b.files());
            return b.cells();
        }
    }

    @Override
    protected void cleanup(Context ctx) throws IOException, InterruptedException {
        try {
            while (stored.key() != null) {
                settle(stored.key(), 0, stored.key().length, stored.value(), ctx);
                stored.advance();
            }
            ctx.getCounter(ReconcileCounter.CELLS_BULK_LOADED).increment(writeCorrections(ctx));
        } finally {
            try {
                if (bulk != null) {
                    bulk.close(); // after a load only empty directories are left; after a failure, unloaded files
                }
            } finally {
                stored.close();
                connection.close();
            }
        }
        String task = Integer.toString(ctx.getTaskAttemptID().getTaskID().getId());
        for (int i = 0; i < rollups.size(); i++) {
            String group = Counters.rollupGroup(rollups.get(i).name());
            ctx.getCounter(group, Counters.CELLS_CHECKED).increment(checked[i]);
            ctx.getCounter(group, Counters.CELLS_CORRECTED).increment(corrected[i]);
            ctx.getCounter(group, Counters.CELLS_DELETED).increment(deleted[i]);
            ctx.getCounter(group, Counters.ABSOLUTE_DRIFT).increment(drift[i]);
            if (maxDrift[i] > 0) {
                ctx.getCounter(group, Counters.MAX_CELL_DRIFT + task).increment(maxDrift[i]);
            }
            ctx.getCounter(ReconcileCounter.CELLS_CHECKED).increment(checked[i]);
            ctx.getCounter(ReconcileCounter.CELLS_CORRECTED).increment(corrected[i]);
            ctx.getCounter(ReconcileCounter.CELLS_DELETED).increment(deleted[i]);
            ctx.getCounter(ReconcileCounter.ABSOLUTE_DRIFT).increment(drift[i]);
        }
    }
}
