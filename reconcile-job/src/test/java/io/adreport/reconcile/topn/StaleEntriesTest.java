package io.adreport.reconcile.topn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Superseded entries are deleted by either path — one Delete per row, or bulk-loaded DeleteFamily
 * markers once a call reaches its threshold — and exactly the rows of the ranges go: three ranges
 * of 7, 30 and 0 rows among rows outside them, the threshold (10) reached inside the second range,
 * so the held keys, the rest of that range and nothing else become marker files. The rows left
 * are compared with the test's own set; the store files show which path ran (compactions are
 * switched off meanwhile, so a loaded file is still there to be seen).
 */
@ExtendWith(HBaseExtension.class)
class StaleEntriesTest {

    @Test
    void bulk_loaded_markers_delete_exactly_the_rows_of_the_ranges(MiniHBase hbase) throws Exception {
        assertEquals(List.of(1, 37), run(hbase, 10));
    }

    @Test
    void below_the_threshold_or_without_one_the_rows_go_as_deletes(MiniHBase hbase) throws Exception {
        assertEquals(List.of(0, 37), run(hbase, 38));
        assertEquals(List.of(0, 37), run(hbase, -1));
    }

    /** Returns [bulk-loaded store files of the index table (0 or 1+, as 0/1), rows deleted]. */
    private static List<Integer> run(MiniHBase hbase, int bulkMin) throws Exception {
        TableLayout layout = new TableLayout(CubeLoader.defaultCube(), hbase.freshNamespace("stale"));
        Admin admin = hbase.connection().getAdmin();
        // the index table alone, as the layout describes it (the cube's other tables are not needed here)
        admin.createNamespace(NamespaceDescriptor.create(layout.rankedIndexTable().getNamespaceAsString()).build());
        admin.createTable(layout.specs().stream().map(TableLayout.Spec::descriptor)
                .filter(d -> d.getTableName().equals(layout.rankedIndexTable())).findFirst().orElseThrow());
        TreeSet<String> expected = new TreeSet<>();
        List<KeyRange> ranges = List.of(range("b"), range("d"), range("f"));
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable())) {
            List<Put> puts = new ArrayList<>();
            String[][] rows = {{"a", "3"}, {"b", "7"}, {"c", "4"}, {"d", "30"}, {"e", "5"}, {"g", "2"}};
            for (String[] r : rows) {
                for (int i = 0; i < Integer.parseInt(r[1]); i++) {
                    String key = r[0] + "/" + String.format("%03d", i);
                    puts.add(new Put(Bytes.toBytes(key)).addColumn(TableLayout.RANKED_FAMILY, Bytes.toBytes("v"), Bytes.toBytes((long) i)));
                    if (!r[0].equals("b") && !r[0].equals("d")) {
                        expected.add(key);
                    }
                }
            }
            t.put(puts);
        }
        admin.compactionSwitch(false, List.of());
        try {
            long deleted = new StaleEntries(hbase.connection(), layout.rankedIndexTable(), bulkMin).delete(ranges);
            int loaded = 0;
            for (HRegion region : hbase.util().getMiniHBaseCluster().getRegions(layout.rankedIndexTable())) {
                for (HStore store : region.getStores()) {
                    for (HStoreFile file : store.getStorefiles()) {
                        loaded += file.isBulkLoadResult() ? 1 : 0;
                    }
                }
            }
            assertEquals(expected, rows(hbase, layout), "rows left with threshold " + bulkMin);
            return List.of(Math.min(1, loaded), (int) deleted);
        } finally {
            admin.compactionSwitch(true, List.of());
        }
    }

    private static KeyRange range(String prefix) {
        return new KeyRange(Bytes.toBytes(prefix + "/"), Bytes.toBytes(prefix + "0"));
    }

    private static TreeSet<String> rows(MiniHBase hbase, TableLayout layout) throws Exception {
        TreeSet<String> out = new TreeSet<>();
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable()); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result r : rs) {
                out.add(Bytes.toString(r.getRow()));
            }
        }
        return out;
    }
}
