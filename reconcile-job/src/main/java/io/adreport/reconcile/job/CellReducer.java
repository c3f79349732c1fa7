package io.adreport.reconcile.job;

import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.hbase.BulkHFiles;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Compares each cell's expected value (the recount) with its stored value (the sum of the
 * metric's base and writer cells, {@code CounterValues}) and writes only the cells that differ: a
 * Put of the exact value to the base cell, encoded as {@code Increment} stores it
 * ({@link Bytes#toBytes(long)}, 8 bytes big-endian), or a Delete of a cell that no event of the
 * day counts in; either way the metric's writer cells are deleted (as of the correction's
 * timestamp), so the base cell alone holds the exact value. An equal cell is not written, writer
 * cells and all, so a second run over unchanged data writes none. A right value held by more
 * than {@value #MAX_WRITER_CELLS} writer cells is folded all the same ({@code CELLS_FOLDED}, not a
 * correction): restarts and writer start-overs add cells to a row, and the nightly job bounds
 * what a read of a closed day sums. A row with a fold is written again whole when that is fewer
 * cells than a marker per writer cell ({@link #rewritesRow}): one DeleteFamily marker newer than
 * all its cells, and its base cells after it.
 *
 * <p>Stored values are not shuffled: this task owns the counter salt buckets
 * {@link CellPartitioner} sends it, reads their stored rows of the day with {@link StoredCells}
 * in key order and merges them with the sorted row keys it receives — a stored row before the
 * current key has no expected value (its cells are deleted), one equal to it is compared cell by
 * cell, and the rest after the last key are deleted in {@link #cleanup}. A row's corrections go
 * out together: one Put (and one Delete) per row on the Put path.
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
 * <p><b>The day's ranked index</b> ({@link DayIndexRows}, when the job was created with the
 * generations to write): each DAY row of an indexed rollup also yields its list entries, from the
 * expected values — what the row holds once this task's corrections are written — so the index
 * needs no scan of its own after the job; the reconciler publishes the generation after it. Many
 * entries go as HFiles, like many corrections ({@code reconcile.index.bulk.min.entries}).
 *
 * <p>Figures are kept per rollup in task-local arrays and published as job counters in
 * {@link #cleanup}; the task's maximum single-cell drift is its own counter (see {@link Counters}).
 */
final class CellReducer extends Reducer<ImmutableBytesWritable, RowCells, ImmutableBytesWritable, Mutation> {
    /** Writer cells a metric may keep when its value is right; more are folded into the base cell. */
    static final int MAX_WRITER_CELLS = 4;

    private final RowCells merged = new RowCells();
    private List<Rollup> rollups;
    private CounterCells cells;
    private ImmutableBytesWritable[] tables;
    private boolean dryRun;
    private TaskConnections.Lease connection;
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
    private long folded;
    private long foldedWriters;
    private BulkCorrections bulk;
    private DayIndexRows index; // null: the job writes no ranked index entries

    /**
     * A correction held while the task decides its write path: a column's (its base cell's Put at
     * the server's time, or a DeleteColumn, and markers for its writer cells at {@code timestamp}),
     * or, with {@code rewrite}, part of a row written again whole: the family marker
     * ({@code column} = {@link #FAMILY}) or a base cell at exactly {@code timestamp}.
     */
    private record Correction(int rollup, byte[] row, int column, long value, boolean delete, long timestamp, List<byte[]> writers,
                              boolean rewrite) {
        static final int FAMILY = -1;
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
        connection = TaskConnections.open(ctx.getConfiguration());
        index = dryRun ? null : DayIndexRows.from(ctx.getConfiguration(), layout, day, connection.connection(), job.indexBulkMinEntries(),
                new DayIndexRows.Bulk(new Path(new Path(ctx.getConfiguration().get(JobSettings.BULK_DIR)),
                        "index-" + ctx.getTaskAttemptID()), ctx.getTaskAttemptID().toString(), taskStart));
        stored = new StoredCells(connection.connection(), layout, cells, job.day(), ctx.getTaskAttemptID().getTaskID().getId(),
                ctx.getNumReduceTasks(), ctx.getCounter(ReconcileCounter.COUNTER_ROWS_READ),
                ctx.getCounter(ReconcileCounter.FOREIGN_CELLS), ctx.getCounter(ReconcileCounter.DAMAGED_CELLS));
    }

    @Override
    protected void reduce(ImmutableBytesWritable key, Iterable<RowCells> values, Context ctx) throws IOException, InterruptedException {
        byte[] k = key.get();
        int off = key.getOffset();
        int len = key.getLength();
        while (stored.key() != null && Bytes.compareTo(stored.key(), 0, stored.key().length, k, off, len) < 0) {
            settle(stored.key(), 0, stored.key().length, stored.value(), ctx);
            stored.advance();
        }
        merged.clear();
        for (RowCells v : values) {
            merged.merge(v);
        }
        if (stored.key() != null && Bytes.equals(stored.key(), 0, stored.key().length, k, off, len)) {
            merged.merge(stored.value());
            stored.advance();
        }
        settle(k, off, len, merged, ctx);
    }

    /**
     * Expected vs stored for each cell of one row; writes the corrections of the cells that differ
     * and the folds. A row with a fold is written again whole when that takes fewer cells than
     * per-column markers ({@link #rewritesRow}).
     */
    private void settle(byte[] k, int off, int len, RowCells row, Context ctx) throws IOException, InterruptedException {
        int rollup = RowKeys.rollup(k, off);
        if (index != null && index.lists(rollup, k, off)) {
            index.write(rollup, RowKeys.row(k, off, len), row);
        }
        long writes = 0; // columns to correct or fold
        int perColumnCells = 0;
        int valued = 0; // columns with an expected value: the base cells of a rewritten row
        boolean anyFold = false;
        long newest = 0;
        for (long m = row.columns(); m != 0; m &= m - 1) {
            int column = Long.numberOfTrailingZeros(m);
            long expected = row.expected(column);
            boolean exists = row.exists(column);
            long storedValue = row.stored(column);
            checked[rollup]++;
            valued += expected != 0 ? 1 : 0;
            newest = exists ? Math.max(newest, row.timestamp(column)) : newest;
            boolean stale = expected == 0 && exists;
            boolean wrong = expected != 0 && (!exists || row.damaged(column) || storedValue != expected);
            int writers = row.writerCells(column); // folded into the base cell: deleted by the correction's timestamp
            boolean fold = !stale && !wrong && writers > MAX_WRITER_CELLS;
            if (!stale && !wrong && !fold) {
                continue;
            }
            writes |= 1L << column;
            perColumnCells += 1 + writers;
            anyFold |= fold;
            if (fold) {
                folded++;
                foldedWriters += writers;
            } else {
                long d = Math.abs(expected - storedValue);
                corrected[rollup]++;
                drift[rollup] += d;
                maxDrift[rollup] = Math.max(maxDrift[rollup], d);
                if (stale) {
                    deleted[rollup]++;
                }
            }
        }
        if (dryRun || writes == 0) {
            return;
        }
        byte[] rowKey = RowKeys.row(k, off, len);
        if (rewritesRow(anyFold, row.foreign(), valued, perColumnCells)) {
            rewrite(rollup, rowKey, row, Math.max(taskStart, newest + 1), ctx);
            return;
        }
        Put put = null;
        Delete delete = null;
        for (long m = writes; m != 0; m &= m - 1) {
            int column = Long.numberOfTrailingZeros(m);
            long expected = row.expected(column);
            boolean stale = expected == 0;
            List<byte[]> writers = row.writerQualifiers(column);
            long timestamp = Math.max(taskStart, row.exists(column) ? row.timestamp(column) + 1 : 0);
            if (bulk != null) {
                bulk.add(rollup, rowKey, column, expected, stale, timestamp, writers);
            } else if (bulkMinCells < 0) {
                byte[] qualifier = cells.qualifier(column);
                if (stale) {
                    delete = (delete == null ? new Delete(rowKey) : delete).addColumns(TableLayout.COUNTER_FAMILY, qualifier);
                } else {
                    put = (put == null ? new Put(rowKey) : put).addColumn(TableLayout.COUNTER_FAMILY, qualifier, Bytes.toBytes(expected));
                }
                delete = deleteWriters(delete, rowKey, writers, timestamp);
            } else {
                hold(new Correction(rollup, rowKey, column, expected, stale, timestamp, writers, false), ctx);
            }
        }
        if (put != null) {
            ctx.write(tables[rollup], put);
        }
        if (delete != null) {
            ctx.write(tables[rollup], delete);
        }
    }

    /**
     * Whether a row is written again whole: it has a fold (a right value held by more than
     * {@value #MAX_WRITER_CELLS} writer cells, each of which a per-column fold masks with a marker
     * of its own), no cell outside the cube's metrics (a family marker would take it too), and one
     * family marker plus a base cell per valued column are fewer cells than the per-column writes.
     * A back-filled day's first pass folds most of its writes this way (~6 writer cells per fold).
     */
    static boolean rewritesRow(boolean anyFold, boolean foreign, int valuedColumns, int perColumnCells) {
        return anyFold && !foreign && 1 + valuedColumns < perColumnCells;
    }

    /**
     * Writes {@code row} again whole: a DeleteFamily marker at {@code timestamp} (newer than every
     * stored cell of the row, so it masks them all: base and writer cells, stale ones included) and
     * the expected value of every valued column as its base cell one millisecond later (a marker
     * masks the cells of its own timestamp). The same on every path: Puts, HFiles, or held.
     */
    private void rewrite(int rollup, byte[] rowKey, RowCells row, long timestamp, Context ctx) throws IOException, InterruptedException {
        if (bulk != null) {
            bulk.deleteFamily(rollup, rowKey, timestamp);
        } else if (bulkMinCells < 0) {
            ctx.write(tables[rollup], new Delete(rowKey).addFamily(TableLayout.COUNTER_FAMILY, timestamp));
        } else {
            hold(new Correction(rollup, rowKey, Correction.FAMILY, 0, true, timestamp, List.of(), true), ctx);
        }
        Put put = null;
        for (long m = row.columns(); m != 0; m &= m - 1) {
            int column = Long.numberOfTrailingZeros(m);
            long expected = row.expected(column);
            if (expected == 0) {
                continue; // stale or not stored: nothing under the marker to keep
            }
            if (bulk != null) {
                bulk.add(rollup, rowKey, column, expected, false, timestamp + 1, List.of());
            } else if (bulkMinCells < 0) {
                put = (put == null ? new Put(rowKey) : put).addColumn(TableLayout.COUNTER_FAMILY, cells.qualifier(column), timestamp + 1,
                        Bytes.toBytes(expected));
            } else {
                hold(new Correction(rollup, rowKey, column, expected, false, timestamp + 1, List.of(), true), ctx);
            }
        }
        if (put != null) {
            ctx.write(tables[rollup], put);
        }
    }

    /** Holds one correction while the task decides its path; switches to HFiles when it has enough. */
    private void hold(Correction c, Context ctx) throws IOException {
        held.add(c);
        if (BulkHFiles.reached(bulkMinCells, held.size())) {
            bulk = new BulkCorrections(ctx.getConfiguration(), connection.connection(), layout, cells,
                    new Path(new Path(ctx.getConfiguration().get(JobSettings.BULK_DIR)), ctx.getTaskAttemptID().toString()),
                    ctx.getTaskAttemptID().toString());
            for (Correction h : held) {
                if (h.column() == Correction.FAMILY) {
                    bulk.deleteFamily(h.rollup(), h.row(), h.timestamp());
                } else {
                    bulk.add(h.rollup(), h.row(), h.column(), h.value(), h.delete(), h.timestamp(), h.writers());
                }
            }
            held.clear();
        }
    }

    /** {@code delete} (created when null and needed) with DeleteColumn markers of {@code writers} as of {@code timestamp}. */
    private static Delete deleteWriters(Delete delete, byte[] row, List<byte[]> writers, long timestamp) {
        for (byte[] w : writers) {
            delete = (delete == null ? new Delete(row) : delete).addColumns(TableLayout.COUNTER_FAMILY, w, timestamp);
        }
        return delete;
    }

    /** The held corrections as Puts/Deletes, or the task's HFiles loaded. */
    private void writeCorrections(Context ctx) throws IOException, InterruptedException {
        if (bulk == null) {
            // Held in row order; the corrections of one row (one row key array) go out as one Put and one Delete.
            int i = 0;
            while (i < held.size()) {
                Correction first = held.get(i);
                Put put = null;
                Delete delete = null;
                for (; i < held.size() && held.get(i).row() == first.row(); i++) {
                    Correction c = held.get(i);
                    if (c.column() == Correction.FAMILY) {
                        delete = (delete == null ? new Delete(c.row()) : delete).addFamily(TableLayout.COUNTER_FAMILY, c.timestamp());
                        continue;
                    }
                    byte[] qualifier = cells.qualifier(c.column());
                    if (c.delete()) {
                        delete = (delete == null ? new Delete(c.row()) : delete).addColumns(TableLayout.COUNTER_FAMILY, qualifier);
                    } else if (c.rewrite()) {
                        put = (put == null ? new Put(c.row()) : put).addColumn(TableLayout.COUNTER_FAMILY, qualifier, c.timestamp(),
                                Bytes.toBytes(c.value()));
                    } else {
                        put = (put == null ? new Put(c.row()) : put).addColumn(TableLayout.COUNTER_FAMILY, qualifier, Bytes.toBytes(c.value()));
                    }
                    delete = deleteWriters(delete, c.row(), c.writers(), c.timestamp());
                }
                if (put != null) {
                    ctx.write(tables[first.rollup()], put);
                }
                if (delete != null) {
                    ctx.write(tables[first.rollup()], delete);
                }
            }
            held.clear();
            return;
        }
        try (BulkCorrections b = bulk) {
            b.load(day);
            ctx.getCounter(ReconcileCounter.HFILES_LOADED).increment(b.files());
        }
    }

    @Override
    protected void cleanup(Context ctx) throws IOException, InterruptedException {
        try {
            while (stored.key() != null) {
                settle(stored.key(), 0, stored.key().length, stored.value(), ctx);
                stored.advance();
            }
            writeCorrections(ctx);
            if (bulk != null) { // a task's corrections go by one path: all of them were loaded
                long all = 0;
                for (long c : corrected) {
                    all += c;
                }
                ctx.getCounter(ReconcileCounter.CELLS_BULK_LOADED).increment(all);
            }
            ctx.getCounter(ReconcileCounter.CELLS_FOLDED).increment(folded);
            ctx.getCounter(ReconcileCounter.WRITER_CELLS_FOLDED).increment(foldedWriters);
            if (index != null) {
                index.finish((rollup, digest) -> ctx.getCounter(DayIndexRows.DIGEST_GROUP, rollup).increment(digest));
                ctx.getCounter(ReconcileCounter.INDEX_ENTRIES).increment(index.written());
                ctx.getCounter(ReconcileCounter.INDEX_ENTRIES_BULK_LOADED).increment(index.bulkLoaded());
            }
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
