package io.adreport.benchmarks;

import io.adreport.schema.hbase.HBaseEndpoint;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * How many writer cells hold each metric value of the counter tables, by table and granularity:
 * what the nightly pass will fold (a value held by more than four) and where those values are.
 * Reads the stored cells of a running {@code bin/adreport local} (its data directory) by plain
 * scans; writes nothing.
 *
 * <pre>java ... io.adreport.benchmarks.WriterCellCensus DATA_DIR [NAMESPACE]</pre>
 */
public final class WriterCellCensus {
    private static final String[] GRANULARITY = {"?", "15m", "hour", "day"};

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        String ns = args.length > 1 ? args[1] : "ads";
        try (Connection c = ConnectionFactory.createConnection(HBaseEndpoint.configuration(data))) {
            TableName[] tables = c.getAdmin().listTableNames(Pattern.compile(Pattern.quote(ns) + ":r_.*"));
            System.out.println("table granularity: rows, values; values held by 0 / 1 / 2 / 3 / 4 / more than 4 writer cells; writer cells of those held by more than 4");
            long foldValues = 0;
            long foldCells = 0;
            for (TableName t : tables) {
                Map<String, long[]> by = new TreeMap<>(); // granularity -> rows, values, n0..n4, n5+, cells5+
                try (Table table = c.getTable(t); ResultScanner s = table.getScanner(new Scan().setCaching(1000))) {
                    for (Result r : s) {
                        byte[] row = r.getRow();
                        String g = row.length > 1 && row[1] >= 1 && row[1] <= 3 ? GRANULARITY[row[1]] : "?";
                        long[] h = by.computeIfAbsent(g, k -> new long[9]);
                        h[0]++;
                        Map<String, int[]> perMetric = new TreeMap<>();
                        for (Cell cell : r.rawCells()) {
                            byte[] q = CellUtil.cloneQualifier(cell);
                            int zero = indexOf(q);
                            String metric = new String(q, 0, zero < 0 ? q.length : zero, java.nio.charset.StandardCharsets.UTF_8);
                            int[] n = perMetric.computeIfAbsent(metric, k -> new int[1]);
                            if (zero >= 0) {
                                n[0]++;
                            }
                        }
                        for (int[] n : perMetric.values()) {
                            h[1]++;
                            h[2 + Math.min(n[0], 5)]++;
                            if (n[0] > 4) {
                                h[8] += n[0];
                            }
                        }
                    }
                }
                for (Map.Entry<String, long[]> e : by.entrySet()) {
                    long[] h = e.getValue();
                    System.out.printf("%-22s %-4s: %,d rows, %,d values; %,d / %,d / %,d / %,d / %,d / %,d; %,d%n", t.getQualifierAsString(),
                            e.getKey(), h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]);
                    foldValues += h[7];
                    foldCells += h[8];
                }
            }
            System.out.printf("values held by more than 4 writer cells: %,d (%,d writer cells)%n", foldValues, foldCells);
        }
    }

    private static int indexOf(byte[] q) {
        for (int i = 0; i < q.length; i++) {
            if (q[i] == 0) {
                return i;
            }
        }
        return -1;
    }
}
