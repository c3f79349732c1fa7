package io.adreport.aggregator.store;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One batched write of raw rows that says which rows failed, for both commit paths. */
final class RawPuts {
    private static final Logger LOG = LoggerFactory.getLogger(RawPuts.class);

    private RawPuts() {
    }

    /**
     * Writes {@code puts} in one batch; returns the rows whose put failed (empty when all were
     * stored). An {@link IOException} other than per-row failures means none is known stored.
     */
    static Set<RowId> put(Table raw, List<Put> puts) throws IOException {
        if (puts.isEmpty()) {
            return Set.of();
        }
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
}
