package io.adreport.schema.counting;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class CounterValuesTest {
    private static final byte[] ROW = Bytes.toBytes("r");
    private static final byte[] F = Bytes.toBytes("c");
    private static final byte[][] METRICS = {Bytes.toBytes("clicks"), Bytes.toBytes("clicksUnique"), Bytes.toBytes("spend")};

    private static Result row(Object... qualifierValue) {
        List<Cell> cells = new ArrayList<>();
        for (int i = 0; i < qualifierValue.length; i += 2) {
            Object v = qualifierValue[i + 1];
            cells.add(new KeyValue(ROW, F, (byte[]) qualifierValue[i], 1L,
                    v instanceof Long l ? Bytes.toBytes(l) : (byte[]) v));
        }
        cells.sort(CellComparator.getInstance());
        return Result.create(cells);
    }

    @Test
    void a_writer_qualifier_is_the_metric_a_zero_byte_and_the_writer_id() {
        byte[] q = CounterValues.writerQualifier(Bytes.toBytes("spend"), 0x0102030405060708L);
        assertArrayEquals(Bytes.add(Bytes.toBytes("spend"), new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8}), q);
    }

    @Test
    void a_metric_is_its_base_cell_plus_every_writer_cell_and_similar_names_stay_apart() {
        Result r = row(Bytes.toBytes("clicks"), 5L,
                CounterValues.writerQualifier(METRICS[0], 1), 7L,
                CounterValues.writerQualifier(METRICS[0], -1), 11L,
                CounterValues.writerQualifier(METRICS[1], 1), 100L, // "clicksUnique" starts with "clicks"
                Bytes.toBytes("clicksX"), 1000L, // a foreign column
                CounterValues.writerQualifier(METRICS[2], 9), new byte[] {1, 2, 3}, // damaged: counts 0
                Bytes.toBytes("spend"), 40L);
        long[] sum = new long[METRICS.length];
        CounterValues.addTo(r, METRICS, sum);
        assertArrayEquals(new long[] {23, 100, 40}, sum);
        assertEquals(23, CounterValues.value(r, METRICS[0]));
        assertEquals(100, CounterValues.value(r, METRICS[1]));
        assertEquals(40, CounterValues.value(r, METRICS[2]));
        assertEquals(0, CounterValues.value(r, Bytes.toBytes("impressions")));
    }

    @Test
    void metric_of_and_is_writer_cell_tell_base_writer_and_foreign_cells_apart() {
        byte[] w = CounterValues.writerQualifier(METRICS[1], 42);
        assertEquals(1, CounterValues.metricOf(METRICS, w, 0, w.length));
        assertEquals(0, CounterValues.metricOf(METRICS, METRICS[0], 0, METRICS[0].length));
        byte[] foreign = Bytes.toBytes("clicks_");
        assertEquals(-1, CounterValues.metricOf(METRICS, foreign, 0, foreign.length));
        byte[] shortWriter = Bytes.add(METRICS[0], new byte[] {0, 1}); // a 0 byte but no 8-byte id
        assertEquals(-1, CounterValues.metricOf(METRICS, shortWriter, 0, shortWriter.length));
        assertTrue(CounterValues.isWriterCell(new KeyValue(ROW, F, w, 1L, Bytes.toBytes(1L))));
        assertFalse(CounterValues.isWriterCell(new KeyValue(ROW, F, METRICS[1], 1L, Bytes.toBytes(1L))));
    }

    @Test
    void one_writers_own_cells_are_read_apart_from_the_base_and_other_writers() {
        long w = 0x1122334455667788L;
        Result r = row(Bytes.toBytes("clicks"), 100L,
                CounterValues.writerQualifier(Bytes.toBytes("clicks"), w), 7L,
                CounterValues.writerQualifier(Bytes.toBytes("clicks"), w + 1), 30L,
                CounterValues.writerQualifier(Bytes.toBytes("clicksUnique"), w), 2L,
                CounterValues.writerQualifier(Bytes.toBytes("spend"), w + 1), 9L);
        long[] mine = new long[3];
        assertTrue(CounterValues.addWriterTo(r, METRICS, w, mine));
        assertArrayEquals(new long[] {7, 2, 0}, mine);
        long[] none = new long[3];
        assertFalse(CounterValues.addWriterTo(r, METRICS, 42L, none));
        assertArrayEquals(new long[] {0, 0, 0}, none);
    }
}
