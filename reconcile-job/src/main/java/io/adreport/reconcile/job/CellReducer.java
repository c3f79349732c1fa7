package io.adreport.reconcile.job;

import io.adreport.schema.cube.Rollup;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Compares each cell's expected value (the recount) with its stored value and writes only the
 * cells that differ: a Put of the exact value, encoded as {@code Increment} stores it
 * ({@link Bytes#toBytes(long)}, 8 bytes big-endian), or a Delete of a cell that no event of the
 * day counts in. An equal cell is not written, so a second run over unchanged data writes none.
 *
 * <p>Output goes to {@code MultiTableOutputFormat} (key = counter table name), or nowhere in a
 * dry run. Figures are kept per rollup in task-local arrays and published as job counters in
 * {@link #cleanup}; the task's maximum single-cell drift is its own counter (see {@link Counters}).
 */
final class CellReducer extends Reducer<ImmutableBytesWritable, CellValue, ImmutableBytesWritable, Mutation> {
    private final CellValue merged = new CellValue();
    private List<Rollup> rollups;
    private ImmutableBytesWritable[] tables;
    private boolean dryRun;
    private long[] checked;
    private long[] corrected;
    private long[] deleted;
    private long[] drift;
    private long[] maxDrift;

    @Override
    protected void setup(Context ctx) {
        JobSettings job = JobSettings.from(ctx.getConfiguration());
        TableLayout layout = job.layout();
        dryRun = job.dryRun();
        rollups = layout.cube().rollups();
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
    }

    @Override
    protected void reduce(ImmutableBytesWritable key, Iterable<CellValue> values, Context ctx) throws IOException, InterruptedException {
        merged.clear();
        for (CellValue v : values) {
            merged.merge(v);
        }
        byte[] k = key.get();
        int off = key.getOffset();
        int rollup = CellKeys.rollup(k, off);
        long expected = merged.expected();
        long stored = merged.stored();
        checked[rollup]++;
        boolean delete = expected == 0 && merged.exists();
        boolean put = expected != 0 && (!merged.exists() || merged.damaged() || stored != expected);
        if (!delete && !put) {
            return;
        }
        long d = Math.abs(expected - stored);
        corrected[rollup]++;
        drift[rollup] += d;
        maxDrift[rollup] = Math.max(maxDrift[rollup], d);
        if (delete) {
            deleted[rollup]++;
        }
        if (dryRun) {
            return;
        }
        byte[] row = CellKeys.row(k, off);
        byte[] qualifier = CellKeys.qualifier(k, off, key.getLength());
        Mutation m = delete
                ? new Delete(row).addColumns(TableLayout.COUNTER_FAMILY, qualifier)
                : new Put(row).addColumn(TableLayout.COUNTER_FAMILY, qualifier, Bytes.toBytes(expected));
        ctx.write(tables[rollup], m);
    }

    @Override
    protected void cleanup(Context ctx) {
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
