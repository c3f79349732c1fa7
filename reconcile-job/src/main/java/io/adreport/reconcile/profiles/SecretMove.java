package io.adreport.reconcile.profiles;

import io.adreport.schema.profile.ProfileKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;

/**
 * The nightly move of device rows from the previous device secret's hash to the current one's,
 * part of {@link ViewRepair}'s pass over a day's raw events (no scan of its own). The pass only
 * sees hashes; an event ingested while the secret rotates carries both
 * ({@code io.adreport.schema.event.DeviceHashes#formerField}), and each such pair names an old row
 * to move into the current row.
 *
 * <p><b>Move = copy, then delete exactly what was copied.</b> Every cell of the old row (segments,
 * views, reverse-index entries) is put into the current row with its qualifier, value and
 * timestamp (so TTLs run on as before, and a view or index cell already there is the same cell:
 * idempotent); once those Puts are flushed, each copied cell is deleted from the old row by an
 * exact-version Delete, so a cell written to the old row meanwhile stays for a later pass. A crash
 * between the two leaves a cell in both rows, which the check counts once (it merges the two rows
 * by qualifier) and the next pass meeting the device deletes. A copied cell the current row had
 * deleted (a trimmed view: exact-version delete marker; a privacy deletion: row marker) stays
 * masked there.
 *
 * <p><b>Bounded.</b> Pairs are gathered {@value ViewRepair#DEVICES_PER_BATCH} at a time; one
 * multi-Get returns at most one key of each old row, so a pair whose row is already moved (a
 * device seen in many events, or the same day passed again) costs nothing more. An existing row is
 * read in pieces of {@value #PIECE} cells. What the current row gained is trimmed by the same
 * batch's count bound (the caller adds the rows to its trim batch).
 *
 * <p><b>Beside a privacy deletion.</b> A deletion erases both rows. Should it erase the current
 * row between this pass's read of the old row and its copy, the copied cells land in the current
 * row after the deletion; those older than the deletion's row marker stay masked, a newer one
 * (and the index cells, which point at raw events the deletion already cleaned) would remain.
 * A narrow window, not closed here: a deletion asked for again finds them.
 *
 * <p>Not moved: devices with no event while rotating (their old rows are read beside the current
 * ones until the previous secret is dropped, and expire by TTL), and pixel beacons whose token was
 * signed before the rotation (they carry only the old hash).
 */
final class SecretMove {
    static final int PIECE = 1_000;

    private final ProfileKey keys;
    /** Previous row → current row, of the batch being gathered. */
    private final Map<ByteBuffer, byte[]> pairs = new LinkedHashMap<>();
    private long devicesMoved;
    private long cellsMoved;
    private long nanos;

    SecretMove(ProfileKey keys) {
        this.keys = keys;
    }

    /** Notes that the device stored under {@code previousHash} is now {@code currentHash}; true when a batch is full. */
    boolean note(String previousHash, String currentHash) {
        if (!previousHash.equals(currentHash)) {
            pairs.put(ByteBuffer.wrap(keys.row(previousHash)), keys.row(currentHash));
        }
        return pairs.size() >= ViewRepair.DEVICES_PER_BATCH;
    }

    /**
     * Moves the gathered rows into their current rows; adds each current row that received cells to
     * {@code touched} (for the trim). Flushes {@code out}.
     */
    void batch(Table profiles, BufferedMutator out, java.util.Set<ByteBuffer> touched) throws IOException {
        if (pairs.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        List<Get> probes = new ArrayList<>(pairs.size());
        for (ByteBuffer old : pairs.keySet()) {
            probes.add(new Get(old.array()).setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter())));
        }
        List<Delete> deletes = new ArrayList<>();
        for (Result r : profiles.get(probes)) {
            if (r.isEmpty()) {
                continue;
            }
            byte[] to = pairs.get(ByteBuffer.wrap(r.getRow()));
            if (copy(profiles, out, r.getRow(), to, deletes) > 0) {
                devicesMoved++;
                touched.add(ByteBuffer.wrap(to));
            }
        }
        pairs.clear();
        out.flush(); // the copies are durable before a cell of the old rows goes
        for (Delete d : deletes) {
            out.mutate(d);
        }
        out.flush();
        nanos += System.nanoTime() - start;
    }

    /** Puts every cell of row {@code from} into row {@code to}; collects their exact deletes; returns how many. */
    private long copy(Table profiles, BufferedMutator out, byte[] from, byte[] to, List<Delete> deletes) throws IOException {
        Scan scan = new Scan().withStartRow(from, true).withStopRow(from, true).setBatch(PIECE).setCaching(1).setCacheBlocks(false);
        long n = 0;
        try (ResultScanner rs = profiles.getScanner(scan)) {
            for (Result piece : rs) {
                // The copy is synced (a delete follows it); a lost delete only leaves a cell in both rows.
                Put put = new Put(to).setDurability(Durability.SYNC_WAL);
                Delete delete = new Delete(from).setDurability(Durability.ASYNC_WAL);
                for (Cell c : piece.rawCells()) {
                    byte[] family = CellUtil.cloneFamily(c);
                    byte[] qualifier = CellUtil.cloneQualifier(c);
                    put.addColumn(family, qualifier, c.getTimestamp(), CellUtil.cloneValue(c));
                    delete.addColumn(family, qualifier, c.getTimestamp());
                }
                if (!put.isEmpty()) {
                    out.mutate(put);
                    deletes.add(delete);
                    n += piece.rawCells().length;
                }
            }
        }
        cellsMoved += n;
        return n;
    }

    long devicesMoved() {
        return devicesMoved;
    }

    long cellsMoved() {
        return cellsMoved;
    }

    /** Wall time spent moving, in seconds. */
    double seconds() {
        return nanos / 1e9;
    }
}
