package io.adreport.launcher.embedded;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.hbase.HBaseEndpoint;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedHBaseTest {

    /** G1 allocates an object of at least half a region (array header included) as humongous. */
    @Test
    void mslab_chunks_stay_under_half_a_g1_region() {
        assertEquals(2_097_152, EmbeddedHBase.mslabChunkBytes(0), "another collector: HBase's own 2 MB");
        assertEquals(523_264, EmbeddedHBase.mslabChunkBytes(1L << 20));
        assertEquals(1_047_552, EmbeddedHBase.mslabChunkBytes(2L << 20), "bin/adreport's 3 GB heap has 2 MB regions");
        assertEquals(2_096_128, EmbeddedHBase.mslabChunkBytes(4L << 20));
        assertEquals(2_097_152, EmbeddedHBase.mslabChunkBytes(8L << 20), "half a region is more than 2 MB");
        assertEquals(2_097_152, EmbeddedHBase.mslabChunkBytes(32L << 20));
    }

    @Test
    void data_survives_a_clean_restart_and_other_processes_find_the_stack(@TempDir Path dir) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, "persist");
        byte[] row = Bytes.toBytes("day/2026-11-29");
        try (EmbeddedHBase hbase = EmbeddedHBase.start(dir, Duration.ofMinutes(3))) {
            assertTrue(Files.exists(dir.resolve(HBaseEndpoint.ZK_PORT_FILE)), "port published for other processes");
            long region = EmbeddedHBase.g1RegionBytes();
            int chunk = hbase.cluster().getRegionServers().get(0).getRegionServer().getConfiguration()
                    .getInt("hbase.hregion.memstore.mslab.chunksize", -1);
            assertTrue(region == 0 ? chunk == 2_097_152 : chunk + 16 < region / 2, "chunk " + chunk + " in G1 regions of " + region);
            try (Connection c = ConnectionFactory.createConnection(HBaseEndpoint.configuration(dir)); Admin admin = c.getAdmin()) {
                new SchemaApplier(layout).apply(admin, false);
                try (Table t = c.getTable(layout.metaTable())) {
                    t.put(new Put(row).addColumn(TableLayout.META_FAMILY, Bytes.toBytes("status"), Bytes.toBytes("closing")));
                }
            }
        }
        assertFalse(Files.exists(dir.resolve(HBaseEndpoint.ZK_PORT_FILE)), "a stopped stack is not advertised");

        try (EmbeddedHBase hbase = EmbeddedHBase.start(dir, Duration.ofMinutes(3));
             Connection c = ConnectionFactory.createConnection(hbase.configuration());
             Admin admin = c.getAdmin()) {
            SchemaApplier.Report again = new SchemaApplier(layout).apply(admin, false);
            assertTrue(again.count(SchemaApplier.Action.CREATED) == 0, again.toString());
            try (Table t = c.getTable(layout.metaTable())) {
                assertArrayEquals(Bytes.toBytes("closing"), t.get(new Get(row)).getValue(TableLayout.META_FAMILY, Bytes.toBytes("status")));
            }
        }
    }

    @Test
    void an_aborted_region_server_is_reported_so_the_stack_can_stop(@TempDir Path dir) throws Exception {
        try (EmbeddedHBase hbase = EmbeddedHBase.start(dir, Duration.ofMinutes(3))) {
            assertNull(hbase.failure(), "a running HBase reports no failure");
            hbase.cluster().getRegionServers().get(0).getRegionServer().abort("test: what a lost ZooKeeper session does");
            String failure = null;
            for (int i = 0; i < 1200 && failure == null; i++) { // up to 2 minutes
                failure = hbase.failure();
                Thread.sleep(100);
            }
            assertTrue(failure != null && failure.contains("region server"), "reported: " + failure);
        }
    }
}
