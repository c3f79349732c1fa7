package io.adreport.privacy;

import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.privacy.Deletion;
import io.adreport.schema.profile.EventIndexCells;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;

/**
 * The {@code requested → unreadable} work of one deletion, in bounded slices: what is personal in
 * the tables, and how it is made unreadable.
 *
 * <ul>
 *   <li><b>Raw events.</b> The device's index ({@link EventIndexCells}) names its raw rows. Each
 *       row's {@code e:v} is rewritten without its hashed fields (the keyed hashes of per-device
 *       fields, {@code h} of {@link RawEventCodec}); dimensions, numbers and the join stay, so
 *       the event still counts and a recount gives the same counters. The rewrite is one atomic
 *       row mutation: a Delete of every version of {@code e:v} at or below the stored cell's
 *       timestamp T, and a Put of the new value at T+1. A Put alone would leave the old version
 *       visible to raw and all-version reads until a compaction (the family keeps 1 version, but
 *       a store file keeps what it was written with); T+1 keeps the row's TTL where it was. Row
 *       key ({@code salt, day, type, id}), {@code e:a} and {@code e:dup} name no device.</li>
 *   <li><b>Order.</b> Per slice: rewrite the raw rows, record their regions as compaction targets,
 *       then delete the slice's index cells. A crash in between leaves index cells whose rows are
 *       already clean; the next slice rewrites nothing for them (no hashed field left) and
 *       deletes them. So every step is idempotent and a restarted worker resumes from the index.</li>
 *   <li><b>Profile.</b> When the index is empty, the profile row (segments, views, index) is
 *       deleted whole, at the newest cell timestamp it holds (view cells carry the impression's
 *       time, which may lie minutes in the future; a Delete at "now" would miss them).</li>
 * </ul>
 */
final class DeviceEraser {
    /** Where a slice records its progress (the deletion's row) before it removes what led to it. */
    interface Progress {
        void record(List<Deletion.Target> targets, long eventsRewritten, long profileCells) throws IOException;
    }

    private final Connection connection;
    private final TableLayout layout;
    private final ProfileKey profileKeys;
    private final int batch;

    DeviceEraser(Connection connection, TableLayout layout, int batch) {
        this.connection = connection;
        this.layout = layout;
        this.profileKeys = new ProfileKey(layout.cube().saltBuckets());
        this.batch = batch;
    }

    /**
     * Works on the device {@code deviceHash} for one slice of at most {@code batch} raw events;
     * true when nothing is left (index empty, profile row deleted).
     */
    boolean slice(String deviceHash, Progress progress) throws IOException {
        byte[] profileRow = profileKeys.row(deviceHash);
        try (Table profiles = connection.getTable(layout.profilesTable())) {
            Result index = profiles.get(new Get(profileRow).addFamily(TableLayout.EVENT_INDEX_FAMILY)
                    .setMaxResultsPerColumnFamily(batch));
            List<byte[]> rawKeys = EventIndexCells.rawKeys(index);
            if (!rawKeys.isEmpty()) {
                long rewritten = rewriteRaw(rawKeys);
                List<Deletion.Target> targets = rawTargets(rawKeys);
                Delete drop = new Delete(profileRow).setDurability(Durability.SYNC_WAL);
                for (byte[] k : rawKeys) {
                    drop.addColumns(TableLayout.EVENT_INDEX_FAMILY, k);
                }
                progress.record(targets, rewritten, 0); // before the index cells go: see the class comment
                profiles.delete(drop);
                return false;
            }
            Result all = profiles.get(new Get(profileRow).setFilter(new KeyOnlyFilter()).readAllVersions());
            long newest = 0;
            for (Cell c : all.rawCells()) {
                newest = Math.max(newest, c.getTimestamp());
            }
            progress.record(List.of(profileTarget(profileRow), wholeTable(layout.privacyTable().getNameAsString())), 0, all.size());
            if (!all.isEmpty()) {
                profiles.delete(new Delete(profileRow, newest).setDurability(Durability.SYNC_WAL));
            }
            return true;
        }
    }

    private long rewriteRaw(List<byte[]> rawKeys) throws IOException {
        try (Table raw = connection.getTable(layout.rawTable())) {
            List<Get> gets = new ArrayList<>(rawKeys.size());
            for (byte[] k : rawKeys) {
                gets.add(new Get(k).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE));
            }
            Result[] rows = raw.get(gets);
            List<RowMutations> rewrites = new ArrayList<>();
            for (Result r : rows) {
                Cell cell = r.isEmpty() ? null : r.getColumnLatestCell(TableLayout.RAW_FAMILY, RawEventCodec.VALUE);
                if (cell == null) {
                    continue; // expired with the raw TTL, or never stored (a failed write's index cell)
                }
                Event e = RawEventCodec.fromJson(org.apache.hadoop.hbase.CellUtil.cloneValue(cell));
                if (e.hashed().isEmpty()) {
                    continue; // already rewritten by an earlier slice
                }
                Event clean = new Event(e.type(), e.id(), e.ts(), e.dimensions(), e.numbers(), e.joinRef(), Map.of());
                long t = cell.getTimestamp();
                RowMutations m = new RowMutations(r.getRow());
                m.add(new Delete(r.getRow()).addColumns(TableLayout.RAW_FAMILY, RawEventCodec.VALUE, t).setDurability(Durability.SYNC_WAL));
                m.add(new Put(r.getRow()).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE, t + 1, RawEventCodec.toJson(clean))
                        .setDurability(Durability.SYNC_WAL));
                rewrites.add(m);
            }
            if (!rewrites.isEmpty()) {
                Object[] results = new Object[rewrites.size()];
                try {
                    raw.batch(rewrites, results);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted rewriting raw events");
                }
            }
            return rewrites.size();
        }
    }

    /** The raw regions holding {@code rawKeys}, as key ranges (region boundaries name no device). */
    private List<Deletion.Target> rawTargets(List<byte[]> rawKeys) throws IOException {
        Map<String, Deletion.Target> out = new LinkedHashMap<>();
        try (RegionLocator locator = connection.getRegionLocator(layout.rawTable())) {
            for (byte[] k : rawKeys) {
                HRegionLocation loc = locator.getRegionLocation(k);
                out.putIfAbsent(loc.getRegion().getEncodedName(), new Deletion.Target(layout.rawTable().getNameAsString(),
                        loc.getRegion().getStartKey(), loc.getRegion().getEndKey()));
            }
        }
        return new ArrayList<>(out.values());
    }

    /**
     * The profile row's salt range {@code [salt, salt+1)}: every region that may hold the row
     * (usually one: the table is pre-split on the salt), recorded without a byte of the hash.
     */
    private Deletion.Target profileTarget(byte[] profileRow) {
        int salt = profileRow[0] & 0xFF;
        byte[] end = salt == 255 ? new byte[0] : new byte[] {(byte) (salt + 1)};
        return new Deletion.Target(layout.profilesTable().getNameAsString(), new byte[] {(byte) salt}, end);
    }

    static Deletion.Target wholeTable(String table) {
        return new Deletion.Target(table, new byte[0], new byte[0]);
    }
}
