package io.adreport.reconcile.job;

import java.io.IOException;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.mapreduce.Reducer;

/** Sums the expected parts of a cell (and keeps its stored value) before the shuffle. */
final class CellCombiner extends Reducer<ImmutableBytesWritable, CellValue, ImmutableBytesWritable, CellValue> {
    private final CellValue merged = new CellValue();

    @Override
    protected void reduce(ImmutableBytesWritable key, Iterable<CellValue> values, Context ctx) throws IOException, InterruptedException {
        merged.clear();
        for (CellValue v : values) {
            merged.merge(v);
        }
        ctx.write(key, merged);
    }
}
