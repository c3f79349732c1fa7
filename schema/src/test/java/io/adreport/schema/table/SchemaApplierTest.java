package io.adreport.schema.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(HBaseExtension.class)
class SchemaApplierTest {
    private final Cube cube = CubeLoader.defaultCube();

    @Test
    void apply_creates_presplit_tables_and_a_second_apply_changes_nothing(MiniHBase hbase) throws Exception {
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("apply"));
        SchemaApplier applier = new SchemaApplier(layout);
        try (Admin admin = hbase.connection().getAdmin()) {
            SchemaApplier.Report dry = applier.apply(admin, true);
            assertEquals(cube.rollups().size() + 7, dry.count(SchemaApplier.Action.WOULD_CREATE));
            assertFalse(admin.tableExists(layout.rawTable()), "a dry run creates nothing");

            SchemaApplier.Report first = applier.apply(admin, false);
            assertEquals(cube.rollups().size() + 7, first.count(SchemaApplier.Action.CREATED));
            SchemaApplier.Report second = applier.apply(admin, false);
            assertEquals(cube.rollups().size() + 7, second.count(SchemaApplier.Action.OK), second.toString());
            assertEquals(0, second.count(SchemaApplier.Action.CREATED));

            List<RegionInfo> raw = admin.getRegions(layout.rawTable());
            assertEquals(cube.rawSaltBuckets(), raw.size());
            List<RegionInfo> campaign = admin.getRegions(layout.counterTable("campaign"));
            assertEquals(cube.saltBuckets(), campaign.size());
            assertTrue(campaign.stream().anyMatch(r -> Bytes.equals(r.getStartKey(), new byte[] {5})), "split on salt byte 5");

            ColumnFamilyDescriptor c = admin.getDescriptor(layout.counterTable("campaign")).getColumnFamily(TableLayout.COUNTER_FAMILY);
            assertEquals(400 * 86_400, c.getTimeToLive());
            assertEquals(BloomType.ROW, c.getBloomFilterType());
            assertEquals(DataBlockEncoding.FAST_DIFF, c.getDataBlockEncoding());
            ColumnFamilyDescriptor e = admin.getDescriptor(layout.rawTable()).getColumnFamily(TableLayout.RAW_FAMILY);
            assertEquals(cube.rawTtlDays() * 86_400, e.getTimeToLive());
            ColumnFamilyDescriptor n = admin.getDescriptor(layout.counterTable("network")).getColumnFamily(TableLayout.COUNTER_FAMILY);
            assertEquals(800 * 86_400, n.getTimeToLive());
            // profiles: segments expire after 30 days, views after the longest cap window (family TTLs are seconds)
            assertEquals(30 * 86_400, admin.getDescriptor(layout.profilesTable()).getColumnFamily(TableLayout.SEGMENT_FAMILY).getTimeToLive());
            assertEquals(120 * 86_400, admin.getDescriptor(layout.profilesTable()).getColumnFamily(TableLayout.VIEW_FAMILY).getTimeToLive());
            assertEquals(cube.saltBuckets(), admin.getRegions(layout.profilesTable()).size());
            // the device index expires with the raw rows it points to
            assertEquals(cube.rawTtlDays() * 86_400,
                    admin.getDescriptor(layout.profilesTable()).getColumnFamily(TableLayout.EVENT_INDEX_FAMILY).getTimeToLive());
            assertTrue(admin.tableExists(layout.privacyTable()));
            // live campaign spend: one region, kept as long as raw events
            assertEquals(cube.rawTtlDays() * 86_400, admin.getDescriptor(layout.spendTable()).getColumnFamily(TableLayout.SPEND_FAMILY).getTimeToLive());
            assertEquals(1, admin.getRegions(layout.spendTable()).size());

            // profiles.region.replication: a dry run reports the difference, an apply makes the replicas
            assertEquals(1, admin.getDescriptor(layout.profilesTable()).getRegionReplication());
            SchemaApplier replicated = new SchemaApplier(layout).withRegionReplication(layout.profilesTable(), 2);
            SchemaApplier.Report wouldChange = replicated.apply(admin, true);
            assertEquals(List.of("region replication is 1, profiles.region.replication wants 2"),
                    resultOf(wouldChange, layout.profilesTable()).drift(), wouldChange.toString());
            SchemaApplier.Report changed = replicated.apply(admin, false);
            assertEquals(SchemaApplier.Action.EXTENDED, resultOf(changed, layout.profilesTable()).action(), changed.toString());
            assertEquals(2, admin.getDescriptor(layout.profilesTable()).getRegionReplication());
            assertEquals(SchemaApplier.Action.OK, resultOf(replicated.apply(admin, false), layout.profilesTable()).action());

            // one region server: every region's replicas share it, and there is nowhere to spread them
            long primaries = admin.getRegions(layout.profilesTable()).stream()
                    .filter(org.apache.hadoop.hbase.client.RegionReplicaUtil::isDefaultReplica).count();
            ReplicaPlacement.Placement placed = ReplicaPlacement.spread(hbase.connection(), admin, layout.profilesTable(),
                    java.time.Duration.ofSeconds(5));
            assertEquals(admin.getRegionServers().size(), placed.live(), placed.toString());
            assertEquals(primaries, placed.regions(), placed.toString());
            assertEquals(1, placed.servers(), placed.toString());
            assertEquals(primaries, placed.colocated(), placed.toString());
        }
    }

    /** One namespace for both kinds of difference (each apply of the whole schema costs CI time). */
    @Test
    void a_missing_family_is_added_while_other_drift_is_reported_not_repaired(MiniHBase hbase) throws Exception {
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("drift"));
        SchemaApplier applier = new SchemaApplier(layout);
        try (Admin admin = hbase.connection().getAdmin()) {
            applier.apply(admin, false);
            admin.deleteColumnFamily(layout.profilesTable(), TableLayout.EVENT_INDEX_FAMILY); // a table from before the index
            TableName zone = layout.counterTable("zone");
            admin.modifyColumnFamily(zone, ColumnFamilyDescriptorBuilder.newBuilder(
                    admin.getDescriptor(zone).getColumnFamily(TableLayout.COUNTER_FAMILY)).setTimeToLive(3600).build());

            SchemaApplier.Report dry = applier.apply(admin, true);
            assertEquals(SchemaApplier.Action.DRIFT, resultOf(dry, layout.profilesTable()).action(),
                    "a dry run reports the missing family: " + dry);
            assertEquals(2, dry.count(SchemaApplier.Action.DRIFT), dry.toString());
            assertEquals(null, admin.getDescriptor(layout.profilesTable()).getColumnFamily(TableLayout.EVENT_INDEX_FAMILY));

            SchemaApplier.Report report = applier.apply(admin, false);
            SchemaApplier.TableResult profiles = resultOf(report, layout.profilesTable());
            assertEquals(SchemaApplier.Action.EXTENDED, profiles.action());
            assertEquals(List.of("family 'ev' added"), profiles.drift());
            assertEquals(cube.rawTtlDays() * 86_400,
                    admin.getDescriptor(layout.profilesTable()).getColumnFamily(TableLayout.EVENT_INDEX_FAMILY).getTimeToLive());

            assertTrue(report.hasDrift(), "a changed TTL is drift: " + report);
            SchemaApplier.TableResult result = resultOf(report, zone);
            assertEquals(SchemaApplier.Action.DRIFT, result.action());
            assertEquals(List.of("TTL is 3600 s, cube wants 34560000 s"), result.drift());
            assertEquals(3600, admin.getDescriptor(zone).getColumnFamily(TableLayout.COUNTER_FAMILY).getTimeToLive(), "left as it was");
            SchemaApplier.Report again = applier.apply(admin, false);
            assertEquals(cube.rollups().size() + 6, again.count(SchemaApplier.Action.OK), again.toString());
            assertEquals(1, again.count(SchemaApplier.Action.DRIFT), "only the TTL stays drift");
        }
    }

    private static SchemaApplier.TableResult resultOf(SchemaApplier.Report report, TableName table) {
        return report.tables().stream().filter(t -> t.table().equals(table)).findFirst().orElseThrow();
    }
}
