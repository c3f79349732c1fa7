package io.adreport.reconcile.job;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * A task's scans, one open at a time: the table and scanner of the current scan, closed when it
 * is exhausted or the next one opens. {@link DayRecordReader} and {@link StoredCells} read their
 * ranges one after another through it. One task thread owns it.
 */
final class RangeScans implements Closeable {
    private Table table;
    private ResultScanner scanner;

    /** Closes the current scan, if any, and opens {@code scan} on {@code tableName}. */
    void open(Connection connection, String tableName, Scan scan) throws IOException {
        close();
        table = connection.getTable(TableName.valueOf(tableName));
        scanner = table.getScanner(scan);
    }

    /** The current scan's next row; null when none is open or it is exhausted (then it is closed). */
    Result next() throws IOException {
        if (scanner == null) {
            return null;
        }
        Result r = scanner.next();
        if (r == null) {
            close();
        }
        return r;
    }

    /** Closes the current scan; the connection stays open (it is the task's). */
    @Override
    public void close() throws IOException {
        if (scanner != null) {
            scanner.close();
            scanner = null;
        }
        if (table != null) {
            table.close();
            table = null;
        }
    }
}
