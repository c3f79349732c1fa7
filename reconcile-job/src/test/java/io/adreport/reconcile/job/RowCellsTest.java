package io.adreport.reconcile.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** RowCells: the shuffle form round-trips through a reused instance, parts add up, stored cells stay off the wire. */
class RowCellsTest {

    @Test
    void expected_parts_round_trip_through_one_reused_instance_and_add_up_per_column() throws Exception {
        SplittableRandom rnd = new SplittableRandom(5);
        RowCells reused = new RowCells();
        for (int round = 0; round < 2_000; round++) {
            int parts = 1 + rnd.nextInt(4);
            long[] oracle = new long[64];
            boolean[] touched = new boolean[64];
            RowCells sum = new RowCells();
            for (int p = 0; p < parts; p++) {
                RowCells part = new RowCells();
                int cells = 1 + rnd.nextInt(5);
                for (int i = 0; i < cells; i++) {
                    int column = rnd.nextInt(rnd.nextBoolean() ? 7 : 64);
                    long delta = rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(-1L << 40, 1L << 40);
                    part.addExpected(column, delta);
                    oracle[column] += delta;
                    touched[column] = true;
                }
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                part.write(new DataOutputStream(bytes));
                reused.readFields(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
                sum.merge(reused); // a framework reuses one value object for every record it reads
            }
            for (int c = 0; c < 64; c++) {
                assertEquals(touched[c], (sum.columns() & (1L << c)) != 0, "column " + c + " touched");
                assertEquals(oracle[c], sum.expected(c), "column " + c);
                assertFalse(sum.exists(c));
            }
        }
    }

    @Test
    void stored_and_damaged_cells_merge_into_the_expected_row_and_never_cross_the_shuffle() {
        RowCells stored = new RowCells();
        stored.addStored(0, 41, 1000, null);
        stored.addDamaged(3, 2000, null);
        RowCells row = new RowCells();
        row.addExpected(0, 42);
        row.addExpected(5, 0);
        row.merge(stored);
        assertEquals((1L << 0) | (1L << 3) | (1L << 5), row.columns());
        assertTrue(row.exists(0) && !row.damaged(0));
        assertEquals(41, row.stored(0));
        assertEquals(1000, row.timestamp(0));
        assertTrue(row.exists(3) && row.damaged(3));
        assertEquals(0, row.stored(3), "a damaged cell has no value");
        assertEquals(2000, row.timestamp(3));
        assertFalse(row.exists(5));
        assertThrows(IllegalStateException.class, () -> row.write(new DataOutputStream(new ByteArrayOutputStream())));
        row.clear();
        assertEquals(0, row.columns());
        assertEquals(0, row.expected(0));
        assertEquals(0, row.timestamp(3));
    }

    @Test
    void a_metric_stored_as_a_base_cell_and_writer_cells_is_their_sum_with_the_newest_timestamp() {
        byte[] w1 = new byte[] {'i', 0, 1, 2, 3, 4, 5, 6, 7, 8};
        byte[] w2 = new byte[] {'i', 0, 9, 9, 9, 9, 9, 9, 9, 9};
        RowCells stored = new RowCells();
        stored.addStored(1, 10, 500, null);
        stored.addStored(1, 7, 900, w1);
        stored.addStored(1, 5, 700, w2);
        stored.addStored(2, 3, 100, null);
        RowCells row = new RowCells();
        row.addExpected(1, 22);
        row.merge(stored);
        assertEquals(22, row.stored(1));
        assertEquals(900, row.timestamp(1));
        assertEquals(2, row.writerQualifiers(1).size());
        assertTrue(row.writerQualifiers(1).contains(w1) && row.writerQualifiers(1).contains(w2));
        assertTrue(row.writerQualifiers(2).isEmpty());
        row.clear();
        assertTrue(row.writerQualifiers(1).isEmpty(), "clear forgets the writer cells");
        assertEquals(0, row.columns());
    }
}
