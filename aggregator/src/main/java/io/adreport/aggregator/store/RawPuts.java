package io.adreport.aggregator.store;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.ArrayList;
import io.adreport.aggregator.WriteTally;
import io.adreport.schema.table.TableLayout;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Batched writes of raw rows that say which rows failed or were not applied, for every commit path. */
final class RawPuts {
    private static final Logger LOG = LoggerFactory.getLogger(RawPuts.class);

    private RawPuts() {
    }

    /**
     * Writes {@code puts} in one batch; returns the rows whose put failed (empty when all were
     * stored). An {@link IOException} other than per-row failures means none is known stored.
     */
    static Set<RowId> put(Table raw, List<Put> puts, WriteTally tally) throws IOException {
        if (puts.isEmpty()) {
            return Set.of();
        }
        tally.sent(puts);
        try {
            raw.put(puts);
            return Set.of();
        } catch (RetriesExhaustedWithDetailsException ex) {
            Set<RowId> failed = new HashSet<>();
            for (int i = 0; i < ex.getNumExceptions(); i++) {
                failed.add(new RowId(ex.getRow(i).getRow()));
            }
            LOG.warn("{} of {} raw puts failed: {}", failed.size(), puts.size(), ex.getMessage());
            return failed;
        }
    }

    /**
     * Writes each of {@code puts} only if its row has no {@code e:<marker>} cell yet, in one
     * batched {@code checkAndMutate}: the region server checks and puts under the row lock, so of
     * several writers of one row exactly one is applied. Returns, per put, whether it was applied.
     * Any {@link IOException} means no outcome is known (the caller fails the whole group; a
     * retry then finds the applied rows and answers them duplicate).
     */
    static boolean[] putIfAbsent(Table raw, List<Put> puts, byte[] marker, WriteTally tally) throws IOException {
        boolean[] applied = new boolean[puts.size()];
        if (puts.isEmpty()) {
            return applied;
        }
        tally.sent(puts);
        List<CheckAndMutate> checks = new ArrayList<>(puts.size());
        for (Put p : puts) {
            checks.add(CheckAndMutate.newBuilder(p.getRow()).ifNotExists(TableLayout.RAW_FAMILY, marker).build(p));
        }
        List<CheckAndMutateResult> results = raw.checkAndMutate(checks);
        for (int i = 0; i < applied.length; i++) {
            applied[i] = results.get(i).isSuccess();
        }
        return applied;
    }
}
