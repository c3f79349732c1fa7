package io.adreport.reconcile.profiles;

import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.hbase.Batches;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;

/**
 * The nightly pass over device view histories: while day D is recounted, every raw impression of
 * D is written again into its device's {@code fc} family ({@link ViewCells#put}, the same write the
 * aggregator makes before an ack) when the day may miss a view ({@link ViewRewrite}: a recorded
 * view gap, an aggregator stopped uncleanly, or asked), and the history of every device touched on
 * D is cut to the newest {@link ViewCells#MAX_VIEWS_KEPT} views per campaign.
 *
 * <p><b>Repair.</b> The cell of an impression is idempotent (same qualifier, same timestamp), so a
 * view already there is unchanged and a view lost between the raw write and the cap write (a
 * crash, a failed write nobody retried) is restored: caps under-count for at most one night.
 * Blind Puts instead of read-compare: a Get per impression would cost more than the write it
 * saves. Written with {@code ASYNC_WAL} (a crash during the pass loses only what the next night's
 * pass writes again) in batches of {@value #VIEWS_PER_BATCH}, each one {@code Table.batch} call,
 * not through a {@link BufferedMutator}: with its write buffer full and its per-server requests
 * in flight, the mutator walks its whole queue of small Puts again on every further Put (four
 * fifths of the repair's own time at a million views). The trim's deletes and the moves go
 * through the mutator.
 *
 * <p><b>Trim.</b> The day's raw impressions already name the devices whose history grew, so no
 * scan of the profiles table is needed: their row keys are gathered during the raw scan, at most
 * {@value #DEVICES_PER_BATCH} distinct ones at a time (a bounded set; a device met again in a
 * later batch is checked again, which finds nothing to do). For each batch, after the repair Puts
 * so far are flushed (so a restored view is counted), one multi-Get asks each device's row for its
 * (K+1)-th {@code fc} cell ({@code ColumnPaginationFilter(1, K)}: the region server skips K cells
 * and ships at most one), so only a device holding more than K cells in all is read further; a
 * device that holds fewer cannot have a campaign above K. Such a row is scanned in pieces of K
 * cells and each cell beyond the newest K of its campaign ({@link ViewCells.CountBound}) is deleted
 * by an exact-version Delete. A view written meanwhile (live, or late) only adds to the views
 * ahead of a deleted one, so it never makes a deleted view one of the newest K. A later repair Put of a deleted
 * view is masked by its delete marker; should it land after a major compaction dropped the
 * marker, the same pass's trim deletes it again (the device is in that day's batch). A crash
 * before the deletes leaves more than K views, which the checks never count past (they count the
 * newest K per campaign) and the next pass that touches the device removes.
 *
 * <p><b>Light devices are not checked.</b> A pass fed part of a day (one of the recount's S map
 * tasks, {@link #open(int, boolean)}) checks a device only once it has fed {@link #trimMin(int) T} of its
 * views; most devices see a few impressions a day, and their check (a Get each) was most of the
 * pass's cost. Views of a device are counted in a fixed array of {@value #COUNT_SLOTS} slots by
 * row hash (4 MB, whatever the day's size): a collision only adds to a count, so it can only add
 * checks, never remove one. What is skipped is bounded: a campaign's views live at most
 * {@link TableLayout#VIEW_TTL_DAYS} days, spanning {@code VIEW_TTL_DAYS + 1} UTC days, and an
 * unchecked device adds fewer than T views per task and day, so a history holds at most
 * {@code K + (VIEW_TTL_DAYS + 1) * S * (T - 1)} views of a campaign, which T keeps within 1.5 K
 * (or {@code K + (VIEW_TTL_DAYS + 1) * S} with many splits). Checks stay exact either way: they
 * count the newest K per campaign.
 *
 * <p><b>Where it runs.</b> Nightly, inside the recount's map tasks ({@code TaskViewRepair}): each
 * task feeds its {@link Pass} the raw events its split decodes anyway, so the day is scanned once
 * for the recount and the repair together. A device whose impressions fall in two splits is
 * trimmed by both tasks, which is the same exact-version deletes twice. {@link #repair} is the
 * same pass with a scan of its own.
 *
 * <p><b>Secret rotation.</b> Every raw event of the day (not only impressions) that carries its
 * device's hash under the previous secret also names an old row to move into the current one
 * ({@link SecretMove}); the moved rows join the same batch's trim.
 */
public final class ViewRepair {
    static final int DEVICES_PER_BATCH = 1_000;
    /** Repair Puts sent together, by one {@code Table.batch} call. */
    static final int VIEWS_PER_BATCH = 2_000;
    /** Slots of a pass's per-device view counts ({@link #open(int, boolean)}). */
    static final int COUNT_SLOTS = 1 << 20;

    private final Connection connection;
    private final TableLayout layout;
    private final UnidentifiedDevices unidentified;

    public ViewRepair(Connection connection, TableLayout layout, UnidentifiedDevices unidentified) {
        if (!ProfileModel.supported(layout.cube())) {
            throw new IllegalArgumentException("cube " + layout.cube().name() + " has no device profiles");
        }
        this.connection = connection;
        this.layout = layout;
        this.unidentified = unidentified;
    }

    /**
     * What one pass did.
     *
     * @param impressions    raw impressions of the day read
     * @param viewsWritten   views (re)written from them
     * @param devicesChecked devices whose history was checked against the count bound (a device met
     *                       in several batches counts once per batch)
     * @param viewsTrimmed   view cells deleted because they were older than the newest K of their
     *                       campaign
     * @param devicesMoved   rows moved from the previous device secret's hash to the current one's
     * @param cellsMoved     cells they held (segments, views, index entries)
     * @param moveSeconds    wall time of the moves
     */
    public record Summary(long impressions, long viewsWritten, long devicesChecked, long viewsTrimmed, long devicesMoved,
                          long cellsMoved, double moveSeconds) {
        /** A pass that moved nothing. */
        public Summary(long impressions, long viewsWritten, long devicesChecked, long viewsTrimmed) {
            this(impressions, viewsWritten, devicesChecked, viewsTrimmed, 0, 0, 0);
        }

        /** The same pass without its timing (for comparisons). */
        public Summary untimed() {
            return new Summary(impressions, viewsWritten, devicesChecked, viewsTrimmed, devicesMoved, cellsMoved, 0);
        }
    }

    /**
     * What a recount's map tasks need to run this pass beside it ({@link ViewRepairSettings}), with
     * or without the re-write of every view ({@link ViewRewrite}).
     */
    public ViewRepairSettings settings(boolean rewrite) {
        return ViewRepairSettings.of(unidentified, rewrite);
    }

    /**
     * Rewrites the views of every raw impression of {@code day}, then trims the devices it touched:
     * the pass on its own, with a scan of the day's raw rows. The nightly job runs the same
     * {@link Pass} inside its map tasks, on the rows the recount reads anyway.
     */
    public Summary repair(LocalDate day) throws IOException {
        RowKeyCodec codec = new RowKeyCodec(layout.cube());
        try (Table raw = connection.getTable(layout.rawTable()); Pass pass = open()) {
            for (int salt = 0; salt < codec.rawSaltBuckets(); salt++) {
                KeyRange range = codec.rawDayRange(salt, day);
                Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop())
                        .addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE).setCaching(1000).setCacheBlocks(false);
                try (ResultScanner rs = raw.getScanner(scan)) {
                    for (Result r : rs) {
                        pass.add(RawEventCodec.fromResult(r));
                    }
                }
            }
            return pass.finish();
        }
    }

    /** Opens a pass that writes every view again and checks every device it is fed a view of (a whole day in one pass). */
    public Pass open() throws IOException {
        return new Pass(1, true);
    }

    /**
     * Opens a pass to be fed part of a day (one map task's split) that checks a device against the
     * count bound only once it has fed {@code trimMin} of its views ({@link #trimMin(int)}), and
     * writes each view again only when {@code rewrite} ({@link ViewRewrite}).
     */
    public Pass open(int trimMin, boolean rewrite) throws IOException {
        return new Pass(trimMin, rewrite);
    }

    /**
     * The views a pass over one of {@code passesPerDay} parts of a day must see of a device before
     * it checks it: {@code max(2, 1 + K / (2 * (VIEW_TTL_DAYS + 1) * passesPerDay))}, so that what
     * unchecked devices add stays within K / 2 per campaign (see the class comment).
     */
    public static int trimMin(int passesPerDay) {
        if (passesPerDay < 1) {
            throw new IllegalArgumentException("passes per day must be at least 1, not " + passesPerDay);
        }
        long spanned = TableLayout.VIEW_TTL_DAYS + 1L;
        return (int) Math.max(2, 1 + ViewCells.MAX_VIEWS_KEPT / (2 * spanned * passesPerDay));
    }

    /**
     * One pass over events fed one at a time: {@link #add} each raw event, then {@link #finish};
     * {@link #close} releases the writer (without finishing). One thread.
     */
    public final class Pass implements AutoCloseable {
        private final ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
        private final Trim trim = new Trim();
        private final SecretMove move = new SecretMove(keys);
        private final String former = DeviceHashes.formerField(ProfileModel.DEVICE_FIELD);
        private final Set<ByteBuffer> devices = new LinkedHashSet<>();
        private final Table profiles;
        private final BufferedMutator out;
        private final int trimMin;
        private final boolean rewrite;
        /** Views fed per row-hash slot, saturating at {@link #trimMin}; null when every device is checked. */
        private final int[] seen;
        private final List<Put> views = new ArrayList<>(VIEWS_PER_BATCH);
        private long impressions;
        private long written;
        private long nanos;

        private Pass(int trimMin, boolean rewrite) throws IOException {
            this.trimMin = trimMin;
            this.rewrite = rewrite;
            this.seen = trimMin > 1 ? new int[COUNT_SLOTS] : null;
            profiles = connection.getTable(layout.profilesTable());
            out = connection.getBufferedMutator(new BufferedMutatorParams(layout.profilesTable()).writeBufferSize(4L << 20));
        }

        /** Rewrites {@code e}'s view when it is an impression; moves or trims when a batch is full. */
        public void add(Event e) throws IOException {
            long start = System.nanoTime();
            try {
                String previous = e.hashed().get(former);
                String device = e.hashed().get(ProfileModel.DEVICE_FIELD);
                boolean unknown = unidentified.isUnidentifiedHash(device);
                if (previous != null && !unknown && move.note(previous, device)) {
                    sendViews();
                    move.batch(profiles, out, devices);
                }
                if (!ProfileModel.IMPRESSION.equals(e.type())) {
                    return;
                }
                impressions++;
                if (unknown) {
                    return;
                }
                Put put = ViewCells.put(keys, e);
                if (put != null) {
                    if (rewrite) {
                        views.add(put.setDurability(Durability.ASYNC_WAL));
                        written++;
                    }
                    if (heavy(put.getRow())) {
                        devices.add(ByteBuffer.wrap(put.getRow()));
                    }
                    if (devices.size() >= DEVICES_PER_BATCH) {
                        sendViews();
                        move.batch(profiles, out, devices);
                        trim.batch(profiles, out, devices);
                    } else if (views.size() >= VIEWS_PER_BATCH) {
                        sendViews();
                    }
                }
            } finally {
                nanos += System.nanoTime() - start;
            }
        }

        /** Writes the repair Puts gathered so far, in one batch call (it returns once they are stored). */
        private void sendViews() throws IOException {
            Batches.send(profiles, views, "the view repair");
        }

        /** Counts one more view of {@code row}; whether the device has now fed {@link #trimMin} views. */
        private boolean heavy(byte[] row) {
            if (seen == null) {
                return true;
            }
            int h = java.util.Arrays.hashCode(row);
            int slot = (h ^ (h >>> 16)) & (COUNT_SLOTS - 1);
            if (seen[slot] < trimMin) {
                seen[slot]++;
            }
            return seen[slot] >= trimMin;
        }

        /** Moves and trims what is still gathered, flushes, and returns what the pass did. */
        public Summary finish() throws IOException {
            long start = System.nanoTime();
            sendViews();
            move.batch(profiles, out, devices);
            trim.batch(profiles, out, devices);
            out.flush();
            nanos += System.nanoTime() - start;
            return new Summary(impressions, written, trim.checked, trim.trimmed, move.devicesMoved(), move.cellsMoved(), move.seconds());
        }

        /** Wall time spent in this pass's own work so far (not the reading of the events). */
        public double seconds() {
            return nanos / 1e9;
        }

        @Override
        public void close() throws IOException {
            try (Table t = profiles) {
                out.close();
            }
        }
    }

    /** The count bound over batches of touched devices; counts what it did. */
    private static final class Trim {
        private long checked;
        private long trimmed;

        void batch(Table profiles, BufferedMutator out, Set<ByteBuffer> devices) throws IOException {
            if (devices.isEmpty()) {
                return;
            }
            out.flush(); // the moves first (the repair Puts are already stored): a moved or restored view must be counted
            List<Get> probes = new ArrayList<>(devices.size());
            for (ByteBuffer row : devices) {
                probes.add(new Get(row.array()).addFamily(TableLayout.VIEW_FAMILY)
                        .setFilter(new ColumnPaginationFilter(1, ViewCells.MAX_VIEWS_KEPT)));
            }
            checked += devices.size();
            devices.clear();
            for (Result r : profiles.get(probes)) {
                if (!r.isEmpty()) {
                    trimmed += trimRow(profiles, out, r.getRow());
                }
            }
        }

        /** Deletes the cells of {@code row} beyond the newest K of their campaign; returns how many. */
        private static long trimRow(Table profiles, BufferedMutator out, byte[] row) throws IOException {
            Scan scan = new Scan().withStartRow(row, true).withStopRow(row, true).addFamily(TableLayout.VIEW_FAMILY)
                    .setBatch(ViewCells.MAX_VIEWS_KEPT).setCaching(1).setCacheBlocks(false);
            ViewCells.CountBound bound = new ViewCells.CountBound(ViewCells.MAX_VIEWS_KEPT);
            long deleted = 0;
            try (ResultScanner rs = profiles.getScanner(scan)) {
                for (Result piece : rs) {
                    Delete d = new Delete(row);
                    for (Cell c : piece.rawCells()) {
                        if (bound.beyond(c)) {
                            d.addColumn(TableLayout.VIEW_FAMILY, CellUtil.cloneQualifier(c), c.getTimestamp());
                        }
                    }
                    if (!d.isEmpty()) {
                        deleted += d.size();
                        out.mutate(d);
                    }
                }
            }
            return deleted;
        }
    }
}
