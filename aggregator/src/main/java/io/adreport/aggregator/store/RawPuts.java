package io.adreport.aggregator.store;

import io.adreport.aggregator.WriteTally;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Batched writes of raw rows that say which rows failed or were not applied, for every commit path. */
final class RawPuts {
    private static final Logger LOG = LoggerFactory.getLogger(RawPuts.class);

    private RawPuts() {
    }

    /**
     * Writes {@code puts} in one batch; returns the rows whose put failed (empty when all were
     * stored). An {@link IOException} other than per-row failures means none is known stored.
     */
    static Set<RowId> put(Table raw, List<Put> puts, WriteTally tally) throws IOException {
        if (puts.isEmpty()) {
            return Set.of();
        }
        tally.sent(puts);
        try {
            raw.put(puts);
            return Set.of();
        } catch (RetriesExhaustedWithDetailsException ex) {
            Set<RowId> failed = new HashSet<>();
            for (int i = 0; i < ex.getNumExceptions(); i++) {
                failed.add(new RowId(ex.getRow(i).getRow()));
            }
            LOG.warn("{} of {} raw puts failed: {}", failed.size(), puts.size(), ex.getMessage());
            return failed;
        }
    }

    /**
     * Writes each of {@code puts} only if its row has no {@code e:<marker>} cell yet, in one
     * batched {@code checkAndMutate}: the region server checks and puts under the row lock, so of
     * several writers of one row exactly one is applied. Returns, per put, whether it was applied.
     * Any {@link IOException} means no outcome is known (the caller keeps the group's rows in
     * doubt; a retry or a later check finds the applied ones).
     *
     * <h2>One WAL sync per region, not one per row</h2>
     * A region server applies each conditional mutation of a batch as its own region operation,
     * and with {@code SYNC_WAL} each waits for its own WAL sync (on HDFS, a pipeline round trip
     * of about 2 ms): a group of 5,000 rows took 10.5 s on the multi-host cluster. So the puts are
     * sent {@code ASYNC_WAL} (appended to the WAL, not synced; a region's only row of the group
     * stays {@code SYNC_WAL}), and then every region that applied one gets one {@code SYNC_WAL} mutation, a delete marker of the never-stored
     * qualifier {@link #WAL_SYNC} at the region's first row. A WAL syncs in append order: the
     * marker's sync returns only once every earlier append of its WAL, the region's applied puts
     * included, is durable. Only then does the caller answer and count.
     * <p>Unsynced edits die with their region server. If one crashed between the puts and the
     * markers, its regions reopen elsewhere without those rows, and a marker sent to the new
     * server would succeed. So the region's location (server and opening sequence) is compared
     * before the puts and after the markers; any difference makes the outcome unknown.
     * <p>Limit: an applied but not yet synced row is visible to other writers for those few
     * milliseconds; one of them answers it duplicate, and if its region server crashes in that
     * window, the row is lost while the first writer answers 503 and its client retries.
     */
    static boolean[] putIfAbsent(Table raw, List<Put> puts, byte[] marker, WriteTally tally) throws IOException {
        boolean[] applied = new boolean[puts.size()];
        if (puts.isEmpty()) {
            return applied;
        }
        tally.sent(puts);
        RegionLocator locator = raw.getRegionLocator();
        Map<String, GroupRegion> regions = new HashMap<>(); // by encoded name: its location before the puts, the group's rows in it
        GroupRegion[] regionOf = new GroupRegion[puts.size()];
        for (int i = 0; i < puts.size(); i++) {
            HRegionLocation at = locator.getRegionLocation(puts.get(i).getRow());
            regionOf[i] = regions.computeIfAbsent(at.getRegion().getEncodedName(), k -> new GroupRegion(at));
            regionOf[i].rows++;
        }
        List<CheckAndMutate> checks = new ArrayList<>(puts.size());
        for (int i = 0; i < puts.size(); i++) {
            Put p = puts.get(i);
            // A region's lone row keeps its own sync (a marker would be one more operation, not one fewer).
            p.setDurability(regionOf[i].rows > 1 ? Durability.ASYNC_WAL : Durability.SYNC_WAL);
            checks.add(CheckAndMutate.newBuilder(p.getRow()).ifNotExists(TableLayout.RAW_FAMILY, marker).build(p));
        }
        List<CheckAndMutateResult> results = raw.checkAndMutate(checks);
        // Regions with an applied row sent unsynced. (A set of GroupRegion, one object per region:
        // HRegionLocation's equals compares only the server.)
        Set<GroupRegion> written = new HashSet<>();
        for (int i = 0; i < applied.length; i++) {
            applied[i] = results.get(i).isSuccess();
            if (applied[i] && regionOf[i].rows > 1) {
                written.add(regionOf[i]);
            }
        }
        syncRegions(raw, locator, written.stream().map(r -> r.before).toList());
        return applied;
    }

    /** A region a group writes to: where it was before the puts, and how many of the group's rows it holds. */
    private static final class GroupRegion {
        final HRegionLocation before;
        int rows;

        GroupRegion(HRegionLocation before) {
            this.before = before;
        }
    }

    /** The qualifier of the delete marker that syncs a region's WAL; no raw row ever stores it. */
    static final byte[] WAL_SYNC = Bytes.toBytes("wal-sync");

    /**
     * One {@code SYNC_WAL} delete marker per region in {@code written}, then a check that each
     * region is still where it was before the puts ({@link #putIfAbsent}).
     */
    private static void syncRegions(Table raw, RegionLocator locator, Collection<HRegionLocation> written) throws IOException {
        if (written.isEmpty()) {
            return;
        }
        List<Delete> marks = new ArrayList<>(written.size());
        for (HRegionLocation at : written) {
            Delete d = new Delete(markRow(at.getRegion())).addColumns(TableLayout.RAW_FAMILY, WAL_SYNC);
            d.setDurability(Durability.SYNC_WAL);
            marks.add(d);
        }
        raw.delete(marks);
        for (HRegionLocation at : written) {
            HRegionLocation now = locator.getRegionLocation(markRow(at.getRegion()), false);
            if (!sameOpening(at, now)) {
                throw new IOException("region " + at.getRegion().getEncodedName() + " moved from " + at.getServerName() + " to "
                        + now.getServerName() + " while its rows were written: whether they are durable is unknown");
            }
        }
    }

    /** The row a region's WAL marker is written to: its first row ({0x00} for the table's first region). */
    static byte[] markRow(RegionInfo region) {
        byte[] start = region.getStartKey();
        return start.length == 0 ? new byte[] {0} : start;
    }

    /** Whether two locations are the same opening of the same region on the same server (start code included). */
    static boolean sameOpening(HRegionLocation a, HRegionLocation b) {
        return b != null && a.getRegion().getEncodedName().equals(b.getRegion().getEncodedName())
                && a.getServerName().equals(b.getServerName()) && a.getSeqNum() == b.getSeqNum();
    }
}
