package io.adreport.aggregator.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.junit.jupiter.api.Test;

/** The rules of the per-region WAL marker (no HBase): where it is written and when a region counts as moved. */
class RawPutsTest {
    private static final TableName RAW = TableName.valueOf("ns", "events_v1");
    private static final RegionInfo FIRST = RegionInfoBuilder.newBuilder(RAW).setEndKey(new byte[] {4}).setRegionId(1).build();
    private static final RegionInfo SECOND = RegionInfoBuilder.newBuilder(RAW).setStartKey(new byte[] {4}).setEndKey(new byte[] {8})
            .setRegionId(1).build();
    private static final ServerName RS1 = ServerName.valueOf("rs1", 16020, 1000);

    @Test
    void the_marker_row_is_the_regions_first_row_and_inside_the_first_region_too() {
        assertArrayEquals(new byte[] {4}, RawPuts.markRow(SECOND));
        byte[] first = RawPuts.markRow(FIRST);
        assertArrayEquals(new byte[] {0}, first);
        assertTrue(FIRST.containsRow(first) && SECOND.containsRow(RawPuts.markRow(SECOND)));
    }

    @Test
    void a_region_reopened_restarted_or_moved_is_not_the_same_opening() {
        HRegionLocation before = new HRegionLocation(SECOND, RS1, 17);
        assertTrue(RawPuts.sameOpening(before, new HRegionLocation(SECOND, ServerName.valueOf("rs1", 16020, 1000), 17)));
        assertFalse(RawPuts.sameOpening(before, new HRegionLocation(SECOND, RS1, 18)), "reopened: new opening sequence");
        assertFalse(RawPuts.sameOpening(before, new HRegionLocation(SECOND, ServerName.valueOf("rs1", 16020, 2000), 17)),
                "the same host restarted: new start code");
        assertFalse(RawPuts.sameOpening(before, new HRegionLocation(SECOND, ServerName.valueOf("rs2", 16020, 1000), 17)), "moved");
        assertFalse(RawPuts.sameOpening(before, new HRegionLocation(FIRST, RS1, 17)), "another region");
        assertFalse(RawPuts.sameOpening(before, null), "no location");
    }
}
