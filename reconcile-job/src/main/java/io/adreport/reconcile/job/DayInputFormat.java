package io.adreport.reconcile.job;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
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
 * Input of the reconcile job: day D's raw rows (one key range per raw salt bucket, from
 * {@link RowKeyCodec#rawDayRange}) and D's counter rows (one range per rollup, granularity and
 * salt bucket, from {@link RowKeyCodec#counterDayRange}). No other day is scanned.
 *
 * <p>Why not {@code MultiTableInputFormat}: it makes one split, one map task and one HBase
 * connection per scan and region — 16 raw + 8 rollups x 3 granularities x 16 buckets = 400 tasks
 * for the default cube, which costs more in task start-up than the day's data in local mode.
 * Here the ranges are dealt into {@code reconcile.splits} splits by salt bucket
 * ({@code salt % splits}), so each task reads a mix of raw and counter ranges, and one
 * connection serves all ranges of a task. On a cluster, set the splits to the bucket count.
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
        int n = Math.max(1, Math.min(wanted, Math.max(cube.saltBuckets(), cube.rawSaltBuckets())));
        List<List<DaySplit.Range>> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(new ArrayList<>());
        }
        String raw = layout.rawTable().getNameAsString();
        for (int s = 0; s < cube.rawSaltBuckets(); s++) {
            KeyRange r = keys.rawDayRange(s, day);
            parts.get(s % n).add(new DaySplit.Range(DaySplit.RAW, raw, r.start(), r.stop()));
        }
        for (int i = 0; i < cube.rollups().size(); i++) {
            Rollup rollup = cube.rollups().get(i);
            String table = layout.counterTable(rollup).getNameAsString();
            for (Granularity g : rollup.granularities()) {
                for (int s = 0; s < cube.saltBuckets(); s++) {
                    KeyRange r = keys.counterDayRange(s, g, day);
                    parts.get(s % n).add(new DaySplit.Range(i, table, r.start(), r.stop()));
                }
            }
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
