package io.adreport.benchmarks;

import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.hbase.HBaseEndpoint;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * How many writer cells hold each metric value of the counter tables, by table and granularity:
 * what the nightly pass will fold (a value held by more than four) and where those values are.
 * Reads the stored cells of a running {@code bin/adreport local} (its data directory, the default
 * cube) by plain scans, through the schema's owners of the key and cell layouts; writes nothing.
 *
 * <pre>java ... io.adreport.benchmarks.WriterCellCensus DATA_DIR [NAMESPACE]</pre>
 */
public final class WriterCellCensus {

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, args.length > 1 ? args[1] : cube.name());
        RowKeyCodec keys = new RowKeyCodec(cube);
        CounterCells cells = new CounterCells(cube, keys);
        byte[][] metrics = new byte[cells.columns()][];
        for (int c = 0; c < metrics.length; c++) {
            metrics[c] = cells.qualifier(c);
        }
        try (Connection c = ConnectionFactory.createConnection(HBaseEndpoint.configuration(data))) {
            System.out.println("table granularity: rows, values; values held by 0 / 1 / 2 / 3 / 4 / more than 4 writer cells; writer cells of those held by more than 4");
            long foldValues = 0;
            long foldCells = 0;
            for (Rollup rollup : cube.rollups()) {
                Map<Granularity, long[]> by = new EnumMap<>(Granularity.class); // rows, values, n0..n4, n5+, cells of n5+
                try (Table table = c.getTable(layout.counterTable(rollup)); ResultScanner s = table.getScanner(new Scan().setCaching(1000))) {
                    for (Result r : s) {
                        long[] h = by.computeIfAbsent(keys.parseCounterKey(r.getRow()).granularity(), k -> new long[9]);
                        h[0]++;
                        int[] writerCells = new int[metrics.length];
                        boolean[] present = new boolean[metrics.length];
                        for (Cell cell : r.rawCells()) {
                            int m = CounterValues.metricOf(metrics, cell);
                            if (m >= 0) {
                                present[m] = true;
                                writerCells[m] += CounterValues.isWriterCell(cell) ? 1 : 0;
                            }
                        }
                        for (int m = 0; m < metrics.length; m++) {
                            if (present[m]) {
                                h[1]++;
                                h[2 + Math.min(writerCells[m], 5)]++;
                                h[8] += writerCells[m] > 4 ? writerCells[m] : 0;
                            }
                        }
                    }
                }
                for (Map.Entry<Granularity, long[]> e : by.entrySet()) {
                    long[] h = e.getValue();
                    System.out.printf("%-22s %-4s: %,d rows, %,d values; %,d / %,d / %,d / %,d / %,d / %,d; %,d%n",
                            layout.counterTable(rollup).getQualifierAsString(), e.getKey().label(), h[0], h[1], h[2], h[3], h[4], h[5],
                            h[6], h[7], h[8]);
                    foldValues += h[7];
                    foldCells += h[8];
                }
            }
            System.out.printf("values held by more than 4 writer cells: %,d (%,d writer cells)%n", foldValues, foldCells);
        }
    }
}
