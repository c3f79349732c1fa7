package io.adreport.reconcile.job;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * Input of the reconcile job: day D's raw rows, one key range per raw salt bucket (from
 * {@link RowKeyCodec#rawDayRange}); no other day is scanned. D's stored counter rows are not map
 * input: each reduce task reads those of its own salt buckets ({@code StoredCells}).
 *
 * <p>Why not {@code MultiTableInputFormat}: it makes one split, one map task and one HBase
 * connection per scan and region, which costs more in task start-up than the day's data in
 * local mode. Here the ranges are dealt into {@code reconcile.splits} splits by salt bucket
 * ({@code salt % splits}), and one connection serves all ranges of a task. On a cluster, set the
 * splits to the bucket count.
 */
public final class DayInputFormat extends InputFormat<IntWritable, Result> {

    @Override
    public List<InputSplit> getSplits(JobContext context) {
        JobSettings job = JobSettings.from(context.getConfiguration());
        return splits(job.layout(), job.day(), job.splits());
    }

    static List<InputSplit> splits(TableLayout layout, LocalDate day, int wanted) {
        Cube cube = layout.cube();
        RowKeyCodec keys = new RowKeyCodec(cube);
        int n = Math.max(1, Math.min(wanted, cube.rawSaltBuckets()));
        List<List<DaySplit.Range>> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(new ArrayList<>());
        }
        String raw = layout.rawTable().getNameAsString();
        for (int s = 0; s < cube.rawSaltBuckets(); s++) {
            KeyRange r = keys.rawDayRange(s, day);
            parts.get(s % n).add(new DaySplit.Range(DaySplit.RAW, raw, r.start(), r.stop()));
        }
        List<InputSplit> out = new ArrayList<>();
        parts.forEach(p -> out.add(new DaySplit(p)));
        return out;
    }

    @Override
    public RecordReader<IntWritable, Result> createRecordReader(InputSplit split, TaskAttemptContext context) {
        return new DayRecordReader();
    }
}
