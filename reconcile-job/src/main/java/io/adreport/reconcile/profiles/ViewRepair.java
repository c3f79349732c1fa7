package io.adreport.reconcile.profiles;

import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.ProfileModel;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.LocalDate;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * The nightly pass over device view histories: after day D is reconciled, every raw impression of
 * D is written again into its device's {@code fc} family ({@link ViewCells#put}, the same write the
 * aggregator makes before an ack). The cell of an impression is idempotent (same qualifier, same
 * timestamp), so a view already there is unchanged and a view lost between the raw write and the
 * cap write (a crash, a failed write nobody retried) is restored: caps under-count for at most
 * one night. Blind Puts instead of read-compare: a Get per impression would cost more than the
 * write it saves. Runs through a {@link BufferedMutator} with {@code ASYNC_WAL}: a crash during
 * the pass loses only what the next night's pass writes again.
 */
public final class ViewRepair {
    private final Connection connection;
    private final TableLayout layout;
    private final UnidentifiedDevices unidentified;

    public ViewRepair(Connection connection, TableLayout layout, UnidentifiedDevices unidentified) {
        if (!ProfileModel.supported(layout.cube())) {
            throw new IllegalArgumentException("cube " + layout.cube().name() + " has no device profiles");
        }
        this.connection = connection;
        this.layout = layout;
        this.unidentified = unidentified;
    }

    /** What one pass did. */
    public record Summary(long impressions, long viewsWritten) {
    }

    /** Rewrites the views of every raw impression of {@code day}. */
    public Summary repair(LocalDate day) throws IOException {
        RowKeyCodec codec = new RowKeyCodec(layout.cube());
        ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
        long impressions = 0;
        long written = 0;
        BufferedMutatorParams params = new BufferedMutatorParams(layout.profilesTable()).writeBufferSize(4L << 20);
        try (Table raw = connection.getTable(layout.rawTable()); BufferedMutator out = connection.getBufferedMutator(params)) {
            for (int salt = 0; salt < codec.rawSaltBuckets(); salt++) {
                KeyRange range = codec.rawDayRange(salt, day);
                Scan scan = new Scan().withStartRow(range.start()).withStopRow(range.stop())
                        .addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE).setCaching(1000).setCacheBlocks(false);
                try (ResultScanner rs = raw.getScanner(scan)) {
                    for (Result r : rs) {
                        Event e = RawEventCodec.fromResult(r);
                        if (!ProfileModel.IMPRESSION.equals(e.type())) {
                            continue;
                        }
                        impressions++;
                        if (unidentified.isUnidentifiedHash(e.hashed().get(ProfileModel.DEVICE_FIELD))) {
                            continue;
                        }
                        Put put = ViewCells.put(keys, e);
                        if (put != null) {
                            out.mutate(put.setDurability(Durability.ASYNC_WAL));
                            written++;
                        }
                    }
                }
            }
            out.flush();
        }
        return new Summary(impressions, written);
    }
}
