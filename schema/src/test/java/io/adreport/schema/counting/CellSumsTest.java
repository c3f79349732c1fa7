package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** CellSums against a plain map of summed deltas, across drains, colliding rows and zero sums. */
class CellSumsTest {

    @Test
    void sums_equal_a_map_oracle_across_drains() throws Exception {
        SplittableRandom rnd = new SplittableRandom(11);
        int columns = 5;
        CellSums sums = new CellSums(columns, 64);
        Map<String, Long> oracle = new HashMap<>();
        Map<String, Long> drained = new HashMap<>();
        CellSums.Drain into = summingInto(drained, columns);
        byte[] row = null;
        int table = 0;
        for (int i = 0; i < 50_000; i++) {
            if (row == null || rnd.nextInt(3) == 0) { // else the same array again, as the fan-out hands a row's metrics
                table = rnd.nextInt(3);
                row = new byte[1 + rnd.nextInt(3)];
                for (int b = 0; b < row.length; b++) {
                    row[b] = (byte) rnd.nextInt(4); // few distinct rows, many equal ones in fresh arrays
                }
            } else if (rnd.nextInt(10) == 0) {
                table = (table + 1) % 3; // the same array under another table is another row
            }
            int column = rnd.nextInt(columns);
            long delta = rnd.nextInt(7) - 3; // zero and negative deltas too: a touched cell with sum 0 is still a cell
            oracle.merge(table + "/" + HexFormat.of().formatHex(row) + "/" + column, delta, Long::sum);
            sums.add(table, row, column, delta);
            if (sums.full()) {
                sums.drain(into); // the next add of the same array must not reach a drained slot
            }
        }
        sums.drain(into);
        assertEquals(0, sums.rows());
        assertEquals(oracle, drained);
        assertTrue(oracle.containsValue(0L), "the data exercises touched cells whose sum is 0");
    }

    /**
     * What {@link CellSums#bytes} reports against what N rows need at the least: per row a header
     * and mask word, a word per column and the key packed in words, and two index slots (the index
     * stays at most half full); arrays that double may hold up to twice that, plus the first
     * arrays' 4,096 rows.
     */
    @Test
    void bytes_cover_what_the_rows_need_and_at_most_twice_that() {
        int columns = 3;
        int rows = 50_000;
        CellSums sums = new CellSums(columns, rows);
        long first = sums.bytes();
        byte[] key = new byte[12];
        for (int r = 0; r < rows; r++) {
            java.nio.ByteBuffer.wrap(key).putInt(0, r).putLong(4, ~r);
            sums.addRow(0, key, key.length, new int[] {0}, new long[] {1}, 1);
        }
        long needed = 8L * rows * ((2 + columns + 2) + 2);
        assertTrue(sums.bytes() >= needed, sums.bytes() + " bytes for " + rows + " rows that need " + needed);
        assertTrue(sums.bytes() <= 2 * needed + first, sums.bytes() + " bytes, more than twice the " + needed + " needed");
    }

    @Test
    void sums_grow_past_their_first_arrays_up_to_the_bound_and_stay_exact() throws Exception {
        SplittableRandom rnd = new SplittableRandom(12);
        int columns = 7;
        int bound = 30_000; // above the first allocation, so the arrays double (and rehash) on the way
        CellSums sums = new CellSums(columns, bound);
        Map<String, Long> oracle = new HashMap<>();
        Map<String, Long> drained = new HashMap<>();
        CellSums.Drain into = summingInto(drained, columns);
        int drains = 0;
        int largest = 0;
        for (int i = 0; i < 200_000; i++) {
            int table = rnd.nextInt(8);
            byte[] row = new byte[2 + rnd.nextInt(2)];
            for (int b = 0; b < row.length; b++) {
                row[b] = (byte) rnd.nextInt(40);
            }
            int column = rnd.nextInt(columns);
            long delta = 1 + rnd.nextInt(1000);
            oracle.merge(table + "/" + HexFormat.of().formatHex(row) + "/" + column, delta, Long::sum);
            sums.add(table, row, column, delta);
            largest = Math.max(largest, sums.rows());
            if (sums.full()) {
                sums.drain(into);
                drains++;
            }
        }
        sums.drain(into);
        assertEquals(oracle, drained);
        assertEquals(bound, largest, "the sums grew to the bound before draining");
        assertTrue(drains >= 1, "the data passes the bound at least once");
    }

    @Test
    void keys_of_every_length_and_keys_that_differ_only_by_trailing_zeros_stay_apart() throws Exception {
        SplittableRandom rnd = new SplittableRandom(13);
        int columns = 3;
        CellSums sums = new CellSums(columns, 1 << 20);
        Map<String, Long> oracle = new HashMap<>();
        Map<String, Long> drained = new HashMap<>();
        for (int i = 0; i < 100_000; i++) {
            int table = rnd.nextInt(2);
            // lengths across the 8-byte words the keys are packed in; zero bytes are common, so a
            // key and the same key with a zero byte more (equal words once padded) both occur
            byte[] row = new byte[1 + rnd.nextInt(26)];
            for (int b = 0; b < row.length; b++) {
                row[b] = (byte) (rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(3));
            }
            int column = rnd.nextInt(columns);
            long delta = rnd.nextLong(1L << 40) - (1L << 39);
            oracle.merge(table + "/" + HexFormat.of().formatHex(row) + "/" + column, delta, Long::sum);
            sums.add(table, row, column, delta);
        }
        sums.drain((table, key, length, touched, values, offset) -> {
            for (int column = 0; column < columns; column++) {
                if ((touched & (1L << column)) != 0) {
                    assertEquals(null, drained.put(table + "/" + HexFormat.of().formatHex(key, 0, length) + "/" + column,
                            values[offset + column]), "each cell is drained once");
                }
            }
        });
        assertEquals(oracle, drained);
        assertTrue(oracle.containsKey("0/01/0") || oracle.containsKey("0/01/1") || oracle.containsKey("0/01/2"), "one-byte keys occur");
        assertTrue(oracle.keySet().stream().anyMatch(k -> k.startsWith("1/0100/")), "a key with a trailing zero byte occurs");
    }

    @Test
    void a_row_is_found_again_by_its_key_kept_by_a_visit_and_forgotten_by_clear() throws Exception {
        CellSums sums = new CellSums(3, 16);
        byte[] buffer = {9, 1, 2, 3, 9, 9}; // the key is a slice of a larger, reused array
        int p = sums.addRow(4, buffer, 4, new int[] {0, 2}, new long[] {5, 7}, 2);
        assertEquals(p, sums.addRow(4, new byte[] {9, 1, 2, 3}, 4, new int[] {0}, new long[] {1}, 1));
        assertEquals(p, sums.record(4, new byte[] {9, 1, 2, 3}, 4));
        assertEquals(-1, sums.record(5, new byte[] {9, 1, 2, 3}, 4), "another table");
        assertEquals(-1, sums.record(4, new byte[] {9, 1, 2}, 3), "a prefix of the key");
        assertEquals(1, sums.rows(), "a lookup inserts nothing");
        assertEquals(6, sums.sum(p, 0));
        assertEquals(0, sums.sum(p, 1));
        assertEquals(7, sums.sum(p, 2));
        sums.set(p, 1, 42);
        Map<String, Long> seen = new HashMap<>();
        sums.visit(summingInto(seen, 3));
        assertEquals(Map.of("4/09010203/0", 6L, "4/09010203/1", 42L, "4/09010203/2", 7L), seen);
        assertEquals(1, sums.rows(), "a visit keeps the rows");
        sums.clear();
        assertEquals(0, sums.rows());
        assertEquals(-1, sums.record(4, new byte[] {9, 1, 2, 3}, 4));
    }

    /** A drain that sums every touched cell into {@code cells}, keyed "table/key in hex/column". */
    private static CellSums.Drain summingInto(Map<String, Long> cells, int columns) {
        return (table, key, length, touched, values, offset) -> {
            for (int column = 0; column < columns; column++) {
                if ((touched & (1L << column)) != 0) {
                    cells.merge(table + "/" + HexFormat.of().formatHex(key, 0, length) + "/" + column, values[offset + column], Long::sum);
                }
            }
        };
    }
}
