package io.adreport.faults;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;

/**
 * A region observer that makes the region server itself slow or failing for the tables a test
 * names: before each batch of mutations it sleeps {@link #delayMillis}, or throws when
 * {@link #failing} is set. This is a fault at the HBase RPC level (the aggregator's client sees a
 * slow or failing server), not in the aggregator's own table wrapper. Loaded into the mini
 * cluster's region servers (same JVM) with the table descriptor.
 *
 * <p>Concurrency: the switches are static and volatile; region server handler threads read them.
 */
public final class SlowServerObserver implements RegionCoprocessor, RegionObserver {
    static final Set<TableName> TABLES = ConcurrentHashMap.newKeySet();
    static volatile long delayMillis;
    static volatile boolean failing;

    @Override
    public Optional<RegionObserver> getRegionObserver() {
        return Optional.of(this);
    }

    @Override
    public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch)
            throws IOException {
        if (!TABLES.contains(c.getEnvironment().getRegionInfo().getTable())) {
            return;
        }
        if (failing) {
            throw new IOException("injected: region server fails this batch");
        }
        long d = delayMillis;
        if (d > 0) {
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while delaying", e);
            }
        }
    }
}
