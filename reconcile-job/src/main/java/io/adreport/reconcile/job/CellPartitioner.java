package io.adreport.reconcile.job;

import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.mapreduce.Partitioner;

/**
 * Sends a cell to the reduce task that owns its counter row's salt bucket ({@code salt %
 * reducers}); that task reads the stored cells of exactly those buckets ({@link StoredCells}).
 */
public final class CellPartitioner extends Partitioner<ImmutableBytesWritable, RowCells> {

    static int partitionOf(int salt, int partitions) {
        return salt % partitions;
    }

    @Override
    public int getPartition(ImmutableBytesWritable key, RowCells value, int partitions) {
        return partitionOf(RowKeys.salt(key.get(), key.getOffset()), partitions);
    }
}
