package io.adreport.reconcile.job;

import java.io.IOException;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.mapreduce.Reducer;

/** Sums the expected parts of a counter row's cells before the shuffle. */
final class CellCombiner extends Reducer<ImmutableBytesWritable, RowCells, ImmutableBytesWritable, RowCells> {
    private final RowCells merged = new RowCells();

    @Override
    protected void reduce(ImmutableBytesWritable key, Iterable<RowCells> values, Context ctx) throws IOException, InterruptedException {
        merged.clear();
        for (RowCells v : values) {
            merged.merge(v);
        }
        ctx.write(key, merged);
    }
}
