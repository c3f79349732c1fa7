package io.adreport.reconcile.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.nio.file.Files;
import java.time.Clock;
import java.time.LocalDate;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link BulkCorrections} against a mini cluster: which cell wins on an equal timestamp, one file
 * per region, and the refusal to load into a day that is not closing.
 */
@ExtendWith(HBaseExtension.class)
class BulkCorrectionsTest {
    private static final LocalDate D = LocalDate.of(2026, 11, 20);
    private static final Cube CUBE = fourBuckets();

    @Test
    void on_an_equal_timestamp_the_bulk_loaded_correction_wins_over_the_live_cell_flushed_or_in_the_memstore(MiniHBase hbase)
            throws Exception {
        TableLayout layout = tables(hbase, "tie");
        CounterCells cells = new CounterCells(CUBE, new RowKeyCodec(CUBE));
        Rollup network = CUBE.rollup("network").orElseThrow();
        int impressions = cells.column("impressions");
        int clicks = cells.column("clicks");
        byte[] flushed = row(network, 0);
        byte[] inMemstore = row(network, 60);
        long t = System.currentTimeMillis() - 60_000; // within the tables' TTL
        try (Table table = hbase.connection().getTable(layout.counterTable(network))) {
            table.put(new Put(flushed).addColumn(TableLayout.COUNTER_FAMILY, cells.qualifier(impressions), t, Bytes.toBytes(5L))
                    .addColumn(TableLayout.COUNTER_FAMILY, cells.qualifier(clicks), t, Bytes.toBytes(9L)));
            hbase.util().flush(layout.counterTable(network));
            table.put(new Put(inMemstore).addColumn(TableLayout.COUNTER_FAMILY, cells.qualifier(impressions), t, Bytes.toBytes(6L)));
            new DayStatusStore(hbase.connection(), layout, Clock.systemUTC()).markClosing(D);

            BulkCorrections bulk = corrections(hbase, layout, cells, "tie");
            int rollup = CUBE.rollups().indexOf(network);
            // In RowKeys order (rows by key), columns by index, with the live cells' own timestamp.
            assertTrue(Bytes.compareTo(flushed, inMemstore) < 0);
            for (int column : new int[] {Math.min(impressions, clicks), Math.max(impressions, clicks)}) {
                bulk.add(rollup, flushed, column, column == impressions ? 42L : 0L, column == clicks, t, List.of());
            }
            bulk.add(rollup, inMemstore, impressions, 43L, false, t, List.of());
            bulk.load(D);
            bulk.close();

            Result f = table.get(new Get(flushed));
            assertArrayEquals(Bytes.toBytes(42L), f.getValue(TableLayout.COUNTER_FAMILY, cells.qualifier(impressions)),
                    "the correction wins over a flushed live cell of the same timestamp");
            assertEquals(null, f.getValue(TableLayout.COUNTER_FAMILY, cells.qualifier(clicks)),
                    "a delete marker of the same timestamp masks the live cell");
            assertArrayEquals(Bytes.toBytes(43L), table.get(new Get(inMemstore)).getValue(TableLayout.COUNTER_FAMILY, cells.qualifier(impressions)),
                    "the correction wins over a live cell of the same timestamp still in the MemStore");
        }
    }

    @Test
    void one_file_per_region_and_no_load_into_a_day_that_is_not_closing(MiniHBase hbase) throws Exception {
        TableLayout layout = tables(hbase, "unclosed");
        CounterCells cells = new CounterCells(CUBE, new RowKeyCodec(CUBE));
        Rollup advertiser = CUBE.rollup("advertiser").orElseThrow();
        int rollup = CUBE.rollups().indexOf(advertiser);
        int impressions = cells.column("impressions");
        java.util.TreeMap<byte[], Integer> rows = new java.util.TreeMap<>(Bytes.BYTES_COMPARATOR);
        for (int a = 0; a < 40; a++) {
            rows.put(new RowKeyCodec(CUBE).counterKey(advertiser, Granularity.DAY, D.toEpochDay() * 1440, List.of("adv" + a)), a);
        }
        long salts = rows.keySet().stream().map(r -> r[0]).distinct().count();
        assertTrue(salts > 1, "rows in several salt buckets (regions)");

        BulkCorrections bulk = corrections(hbase, layout, cells, "unclosed");
        for (byte[] r : rows.keySet()) {
            bulk.add(rollup, r, impressions, 7L, false, System.currentTimeMillis(), List.of());
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> bulk.load(D));
        assertTrue(e.getMessage().contains("the day is live, not closing"), e.getMessage());
        assertEquals(salts, bulk.files(), "one HFile per region touched");
        bulk.close();
        try (Table table = hbase.connection().getTable(layout.counterTable(advertiser))) {
            for (byte[] r : rows.keySet()) {
                assertTrue(table.get(new Get(r)).isEmpty(), "nothing was loaded");
            }
        }
    }

    private static BulkCorrections corrections(MiniHBase hbase, TableLayout layout, CounterCells cells, String name) throws Exception {
        java.nio.file.Path dir = Files.createDirectories(java.nio.file.Path.of("target/bulk-test")).resolve(name + System.nanoTime());
        return new BulkCorrections(hbase.configuration(), hbase.connection(), layout, cells, new Path(dir.toAbsolutePath().toUri()), name);
    }

    private static byte[] row(Rollup network, int minute) {
        return new RowKeyCodec(CUBE).counterKey(network, Granularity.HOUR, D.toEpochDay() * 1440 + minute, List.of());
    }

    private static TableLayout tables(MiniHBase hbase, String hint) throws Exception {
        TableLayout layout = new TableLayout(CUBE, hbase.freshNamespace(hint));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        return layout;
    }

    private static Cube fourBuckets() {
        try (java.io.InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            String yaml = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return CubeLoader.parse("ads.yaml with 4 buckets", yaml.replace("Buckets: 16", "Buckets: 4"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
