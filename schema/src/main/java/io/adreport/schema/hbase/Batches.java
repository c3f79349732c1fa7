package io.adreport.schema.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;

/**
 * Writes a gathered list of mutations in one {@link Table#batch} call, which returns once they are
 * all stored (or throws, naming the failed ones), and empties the list for the next batch. The
 * bulk writers of the nightly pass use it instead of a {@code BufferedMutator}, whose queue walk
 * on every mutation once its buffer is full dominated their profiles.
 */
public final class Batches {
    private Batches() {
    }

    /** Stores {@code rows} (nothing when empty) and clears the list; {@code what} names them in an interruption. */
    public static void send(Table table, List<? extends Row> rows, String what) throws IOException {
        if (rows.isEmpty()) {
            return;
        }
        try {
            table.batch(rows, new Object[rows.size()]);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing " + what);
        }
        rows.clear();
    }
}
