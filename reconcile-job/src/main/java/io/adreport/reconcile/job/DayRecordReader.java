package io.adreport.reconcile.job;

import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * Reads the ranges of one {@link DaySplit} one after another over one connection. Key: the
 * range's source ({@link DaySplit#RAW} or a rollup index); value: the row. A scan error fails
 * the task, and the framework retries it; nothing is written by the reader.
 */
final class DayRecordReader extends RecordReader<IntWritable, Result> {
    private static final int CACHING = 1000;

    private List<DaySplit.Range> ranges;
    private TaskConnections.Lease connection;
    private final RangeScans scans = new RangeScans();
    private int index = -1;
    private final IntWritable key = new IntWritable();
    private Result value;

    @Override
    public void initialize(InputSplit split, TaskAttemptContext context) throws IOException {
        ranges = ((DaySplit) split).ranges();
        connection = TaskConnections.open(context.getConfiguration());
    }

    @Override
    public boolean nextKeyValue() throws IOException {
        while (true) {
            Result r = scans.next();
            if (r != null) {
                key.set(ranges.get(index).source());
                value = r;
                return true;
            }
            if (++index >= ranges.size()) {
                return false;
            }
            DaySplit.Range range = ranges.get(index);
            Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop())
                    .addFamily(range.source() == DaySplit.RAW ? TableLayout.RAW_FAMILY : TableLayout.COUNTER_FAMILY)
                    .setCaching(CACHING).setCacheBlocks(false);
            scans.open(connection.connection(), range.table(), scan);
        }
    }

    @Override
    public IntWritable getCurrentKey() {
        return key;
    }

    @Override
    public Result getCurrentValue() {
        return value;
    }

    @Override
    public float getProgress() {
        return ranges == null || ranges.isEmpty() ? 1f : Math.max(0, Math.min(index, ranges.size())) / (float) ranges.size();
    }

    @Override
    public void close() throws IOException {
        scans.close();
        if (connection != null) {
            connection.close();
        }
    }
}
