package io.adreport.aggregator;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;

/**
 * Real tables of the mini cluster with faults spliced in where a test says: the counter tables'
 * {@code batch} (flush) and the raw table's reads and writes. Everything else goes to HBase.
 */
final class FaultyTables implements TableSource {

    /** Replaces a counter-table batch call; {@code real} is the real table. */
    @FunctionalInterface
    interface BatchFault {
        void batch(Table real, List<? extends Row> actions, Object[] results) throws IOException, InterruptedException;
    }

    private final TableSource real;
    private final TableName rawTable;
    volatile BatchFault counterBatch;
    volatile IOException rawFailure;

    FaultyTables(TableSource real, TableName rawTable) {
        this.real = real;
        this.rawTable = rawTable;
    }

    @Override
    public Table open(TableName name) throws IOException {
        Table t = real.open(name);
        if (name.getQualifierAsString().startsWith("spend_")) {
            return t; // the spend flusher's own small batches: faults here target the counter flush
        }
        return name.equals(rawTable) ? new Raw(t) : new Counter(t);
    }

    private class Delegate implements Table {
        final Table t;

        Delegate(Table t) {
            this.t = t;
        }

        @Override
        public TableName getName() {
            return t.getName();
        }

        @Override
        public Configuration getConfiguration() {
            return t.getConfiguration();
        }

        @Override
        public TableDescriptor getDescriptor() throws IOException {
            return t.getDescriptor();
        }

        @Override
        public RegionLocator getRegionLocator() throws IOException {
            return t.getRegionLocator();
        }

        @Override
        public void batch(List<? extends Row> actions, Object[] results) throws IOException, InterruptedException {
            t.batch(actions, results);
        }

        @Override
        public Result[] get(List<Get> gets) throws IOException {
            return t.get(gets);
        }

        @Override
        public void put(List<Put> puts) throws IOException {
            t.put(puts);
        }

        @Override
        public long incrementColumnValue(byte[] row, byte[] family, byte[] qualifier, long amount) throws IOException {
            return t.incrementColumnValue(row, family, qualifier, amount);
        }

        @Override
        public void close() throws IOException {
            t.close();
        }
    }

    private final class Counter extends Delegate {
        Counter(Table t) {
            super(t);
        }

        @Override
        public void batch(List<? extends Row> actions, Object[] results) throws IOException, InterruptedException {
            BatchFault f = counterBatch;
            if (f == null) {
                t.batch(actions, results);
            } else {
                f.batch(t, actions, results);
            }
        }
    }

    private final class Raw extends Delegate {
        Raw(Table t) {
            super(t);
        }

        @Override
        public Result[] get(List<Get> gets) throws IOException {
            IOException f = rawFailure;
            if (f != null) {
                throw f;
            }
            return t.get(gets);
        }

        @Override
        public void put(List<Put> puts) throws IOException {
            IOException f = rawFailure;
            if (f != null) {
                throw f;
            }
            t.put(puts);
        }
    }
}
