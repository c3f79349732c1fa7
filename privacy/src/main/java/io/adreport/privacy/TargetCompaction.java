package io.adreport.privacy;

import io.adreport.schema.privacy.Deletion;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.SnapshotDescription;

/**
 * Physical removal: flush and major-compact only the regions that held a deleted device's cells,
 * and watch snapshots. A flush first, because a major compaction rewrites store files only: a
 * tombstone still in the memstore would not reach it and the old cell would survive in its file.
 * A region counts as compacted when it is not compacting and either holds no store file or its
 * oldest major-compacted file was written after the request (the region server's
 * "last major compaction" time); regions are looked up again each time, so a split or a move
 * after the request is followed (a lost request is repeated by the worker after
 * {@code privacy.compact.retry.ms}). The times compared are the region servers' wall clocks.
 */
final class TargetCompaction {
    private final Connection connection;
    private final String namespace;

    TargetCompaction(Connection connection, String namespace) {
        this.connection = connection;
        this.namespace = namespace;
    }

    /** Flushes, then requests a major compaction of, every region overlapping {@code targets}. */
    void request(List<Deletion.Target> targets) throws IOException {
        try (Admin admin = connection.getAdmin()) {
            for (RegionInfo region : regions(admin, targets)) {
                admin.flushRegion(region.getRegionName());
                admin.majorCompactRegion(region.getRegionName());
            }
        }
    }

    /** True when every region overlapping {@code targets} was major-compacted after {@code requested}. */
    boolean done(List<Deletion.Target> targets, Instant requested) throws IOException {
        try (Admin admin = connection.getAdmin()) {
            for (RegionInfo region : regions(admin, targets)) {
                if (admin.getCompactionStateForRegion(region.getRegionName()) != CompactionState.NONE) {
                    return false;
                }
                RegionMetrics m = metrics(admin, region);
                if (m == null) {
                    return false; // in transition: ask again later
                }
                if (m.getStoreFileCount() > 0 && m.getLastMajorCompactionTimestamp() < requested.toEpochMilli()) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Names of the namespace's snapshots taken before {@code requested}. */
    List<String> snapshotsBefore(Instant requested) throws IOException {
        List<String> out = new ArrayList<>();
        try (Admin admin = connection.getAdmin()) {
            for (SnapshotDescription s : admin.listSnapshots()) {
                if (s.getTableName() != null && namespace.equals(s.getTableName().getNamespaceAsString())
                        && s.getCreationTime() < requested.toEpochMilli()) {
                    out.add(s.getName());
                }
            }
        }
        return out;
    }

    private RegionMetrics metrics(Admin admin, RegionInfo region) throws IOException {
        ServerName server;
        try (RegionLocator locator = connection.getRegionLocator(region.getTable())) {
            server = locator.getRegionLocation(region.getStartKey(), true).getServerName();
        }
        for (RegionMetrics m : admin.getRegionMetrics(server, region.getTable())) {
            if (Arrays.equals(m.getRegionName(), region.getRegionName())) {
                return m;
            }
        }
        return null;
    }

    private static List<RegionInfo> regions(Admin admin, List<Deletion.Target> targets) throws IOException {
        Map<String, RegionInfo> out = new LinkedHashMap<>();
        for (Deletion.Target t : targets) {
            for (RegionInfo r : admin.getRegions(TableName.valueOf(t.table()))) {
                if (r.isSplitParent() || r.isOffline()) {
                    continue;
                }
                boolean startsBeforeEnd = t.end().length == 0 || Arrays.compareUnsigned(r.getStartKey(), t.end()) < 0;
                boolean endsAfterStart = r.getEndKey().length == 0 || Arrays.compareUnsigned(r.getEndKey(), t.start()) > 0;
                if (startsBeforeEnd && endsAfterStart) {
                    out.putIfAbsent(r.getEncodedName(), r);
                }
            }
        }
        return new ArrayList<>(out.values());
    }
}
