package io.adreport.aggregator;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What the counter tables hold, read back for a test: every counter cell of every rollup as
 * "rollup|granularity|bucketMinute|v1,v2|metric" → value, for the days [fromDay, toDay). Keys are
 * parsed with the codec; nothing here knows how events are counted.
 */
final class StoredCounters {
    private StoredCounters() {
    }

    static String key(String rollup, String granularity, long bucketMinute, java.util.List<String> values, String metric) {
        return rollup + "|" + granularity + "|" + bucketMinute + "|" + String.join(",", values) + "|" + metric;
    }

    static Map<String, Long> read(Connection connection, Cube cube, TableLayout layout, long fromDay, long toDay) {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Map<String, Long> out = new HashMap<>();
        for (var rollup : cube.rollups()) {
            try (Table t = connection.getTable(layout.counterTable(rollup)); ResultScanner rs = t.getScanner(new Scan())) {
                for (Result r : rs) {
                    CounterKey k = codec.parseCounterKey(r.getRow());
                    long day = Math.floorDiv(k.bucketMinute(), 1440);
                    if (day < fromDay || day >= toDay) {
                        continue;
                    }
                    NavigableMap<byte[], byte[]> cols = r.getFamilyMap(TableLayout.COUNTER_FAMILY);
                    for (var c : cols.entrySet()) {
                        // a metric's value is the sum of its cells: "name" and every "name\0<writer id>"
                        byte[] q = c.getKey();
                        int end = 0;
                        while (end < q.length && q[end] != 0) {
                            end++;
                        }
                        out.merge(key(rollup.name(), k.granularity().label(), k.bucketMinute(), k.values(),
                                Bytes.toString(q, 0, end)), Bytes.toLong(c.getValue()), Long::sum);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }
}
