package io.adreport.schema.privacy;

import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Privacy deletions and their steps in {@code NS:privacy} (family {@code p}), one row per
 * deletion, so that any process resumes a deletion from its recorded step. Layout (frozen):
 * <pre>row              = deletion id: 32 lower-case hex digits (16 random bytes), ASCII
 * p:device         = the device's keyed hash, 64 hex digits, ASCII — present ONLY until
 *                    {@code unreadable}: deleted in the same atomic row mutation that records it
 * p:device.previous = the same under the previous device secret, when asked while the secret
 *                    rotated ({@code io.adreport.schema.event.DeviceHashes}); deleted with p:device
 * p:s:LABEL        = time the step LABEL ({@link DeletionStep#label}) was reached, 8-byte epoch millis;
 *                    written once (put-if-absent), so a repeated step keeps its first time
 * p:events         = raw events rewritten so far, 8-byte long (Increment)
 * p:profile        = profile cells deleted, 8-byte long (Increment)
 * p:t:TABLE 0x00 START = END   a key range of TABLE (END empty: to the end) to major-compact
 * p:compact        = time the compaction of the ranges was requested, 8-byte epoch millis</pre>
 * The raw device id is never written. A range holds region boundaries or a salt byte, never a
 * device hash, so after {@code unreadable} the row holds nothing that names the device.
 */
public final class DeletionStore {
    private static final byte[] F = TableLayout.PRIVACY_FAMILY;
    private static final byte[] DEVICE = Bytes.toBytes("device");
    private static final byte[] DEVICE_PREVIOUS = Bytes.toBytes("device.previous");
    private static final byte[] EVENTS = Bytes.toBytes("events");
    private static final byte[] PROFILE = Bytes.toBytes("profile");
    private static final byte[] COMPACT = Bytes.toBytes("compact");
    private static final byte[] TARGET_PREFIX = Bytes.toBytes("t:");
    private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Connection connection;
    private final TableLayout layout;

    public DeletionStore(Connection connection, TableLayout layout) {
        this.connection = connection;
        this.layout = layout;
    }

    /**
     * Checks a raw device id of a deletion request (API or command line) and returns its canonical
     * spelling ({@link io.adreport.schema.event.DeviceId}, the rule ingest and serving apply).
     *
     * @throws IllegalArgumentException with the rule broken, for the field {@code device}
     */
    public static String requireDevice(String raw, io.adreport.schema.profile.UnidentifiedDevices unidentified) {
        if (raw == null) {
            throw new IllegalArgumentException("is required");
        }
        String device = io.adreport.schema.event.DeviceId.normalize(raw);
        if (unidentified.isUnidentifiedRaw(device)) {
            throw new IllegalArgumentException("names no device (empty, all-zero or a placeholder id): nothing is kept under it");
        }
        return device;
    }

    /** True for a well-formed deletion id. */
    public static boolean validId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** Records a new deletion of the device whose keyed hash is {@code deviceHash}; returns its id. */
    public String create(String deviceHash, Instant now) throws IOException {
        return create(List.of(deviceHash), now);
    }

    /**
     * Records a new deletion of the device stored under {@code deviceHashes} (current first, then
     * the previous secret's while rotating: {@code DeviceHashes#all}); returns its id.
     */
    public String create(List<String> deviceHashes, Instant now) throws IOException {
        if (deviceHashes.isEmpty() || deviceHashes.size() > 2) {
            throw new IllegalArgumentException("a deletion names one or two device hashes");
        }
        for (String h : deviceHashes) {
            if (h == null || !h.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("device hash must be 64 lower-case hex digits");
            }
        }
        byte[] raw = new byte[16];
        RANDOM.nextBytes(raw);
        String id = HexFormat.of().formatHex(raw);
        Put put = new Put(Bytes.toBytes(id))
                .addColumn(F, DEVICE, Bytes.toBytes(deviceHashes.get(0)));
        if (deviceHashes.size() == 2) {
            put.addColumn(F, DEVICE_PREVIOUS, Bytes.toBytes(deviceHashes.get(1)));
        }
        put.addColumn(F, DeletionStep.REQUESTED.qualifier(), Bytes.toBytes(now.toEpochMilli()))
                .setDurability(Durability.SYNC_WAL);
        try (Table t = table()) {
            t.put(put);
        }
        return id;
    }

    public Optional<Deletion> get(String id) throws IOException {
        if (!validId(id)) {
            return Optional.empty();
        }
        try (Table t = table()) {
            Result r = t.get(new Get(Bytes.toBytes(id)).addFamily(F));
            return r.isEmpty() ? Optional.empty() : Optional.of(decode(r));
        }
    }

    /** Up to {@code limit} deletions not done yet, oldest id order (ids are random: no fairness implied). */
    public List<Deletion> pending(int limit) throws IOException {
        // A row with p:s:done fails the filter (its 8-byte value never equals the empty array);
        // a row without it passes (filterIfMissing false). Done rows stay as the audit trail.
        SingleColumnValueFilter notDone = new SingleColumnValueFilter(F, DeletionStep.DONE.qualifier(), CompareOperator.EQUAL,
                new byte[0]);
        notDone.setFilterIfMissing(false);
        List<Deletion> out = new ArrayList<>();
        try (Table t = table(); ResultScanner rs = t.getScanner(new Scan().addFamily(F).setFilter(notDone).setCaching(limit))) {
            for (Result r : rs) {
                out.add(decode(r));
                if (out.size() >= limit) {
                    break;
                }
            }
        }
        return out;
    }

    /** Records {@code step} at {@code now} unless it is already recorded (the first time stays). */
    public void mark(String id, DeletionStep step, Instant now) throws IOException {
        try (Table t = table()) {
            t.checkAndMutate(CheckAndMutate.newBuilder(Bytes.toBytes(id)).ifNotExists(F, step.qualifier())
                    .build(new Put(Bytes.toBytes(id)).addColumn(F, step.qualifier(), Bytes.toBytes(now.toEpochMilli()))
                            .setDurability(Durability.SYNC_WAL)));
        }
    }

    /**
     * Records {@code unreadable} and forgets the device hash, in one atomic row mutation: there is
     * no moment where the step is recorded and the hash still stored, or the hash gone and the
     * step not recorded.
     */
    public void markUnreadable(String id, Instant now) throws IOException {
        byte[] row = Bytes.toBytes(id);
        RowMutations m = new RowMutations(row);
        m.add(new Put(row).addColumn(F, DeletionStep.UNREADABLE.qualifier(), Bytes.toBytes(now.toEpochMilli()))
                .setDurability(Durability.SYNC_WAL));
        m.add(new Delete(row).addColumns(F, DEVICE).addColumns(F, DEVICE_PREVIOUS).setDurability(Durability.SYNC_WAL));
        try (Table t = table()) {
            t.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(F, DeletionStep.UNREADABLE.qualifier()).build(m));
        }
    }

    /** Adds key ranges to compact and counts of what was deleted. */
    public void progress(String id, List<Deletion.Target> targets, long events, long profileCells) throws IOException {
        byte[] row = Bytes.toBytes(id);
        try (Table t = table()) {
            if (!targets.isEmpty()) {
                Put put = new Put(row).setDurability(Durability.SYNC_WAL);
                for (Deletion.Target target : targets) {
                    put.addColumn(F, Bytes.add(TARGET_PREFIX, Bytes.toBytes(target.table()), Bytes.add(new byte[1], target.start())),
                            target.end());
                }
                t.put(put);
            }
            if (events != 0 || profileCells != 0) {
                t.increment(new Increment(row).addColumn(F, EVENTS, events).addColumn(F, PROFILE, profileCells)
                        .setReturnResults(false));
            }
        }
    }

    public void markCompactRequested(String id, Instant now) throws IOException {
        try (Table t = table()) {
            t.put(new Put(Bytes.toBytes(id)).addColumn(F, COMPACT, Bytes.toBytes(now.toEpochMilli())));
        }
    }

    private Table table() throws IOException {
        return connection.getTable(layout.privacyTable());
    }

    static Deletion decode(Result r) {
        String id = Bytes.toString(r.getRow());
        Map<DeletionStep, Instant> steps = new EnumMap<>(DeletionStep.class);
        for (DeletionStep s : DeletionStep.values()) {
            byte[] v = r.getValue(F, s.qualifier());
            if (v != null && v.length == 8) {
                steps.put(s, Instant.ofEpochMilli(Bytes.toLong(v)));
            }
        }
        byte[] device = r.getValue(F, DEVICE);
        byte[] previous = r.getValue(F, DEVICE_PREVIOUS);
        List<Deletion.Target> targets = new ArrayList<>();
        for (Cell c : r.rawCells()) {
            byte[] q = CellUtil.cloneQualifier(c);
            if (Bytes.startsWith(q, TARGET_PREFIX)) {
                int zero = indexOfZero(q, TARGET_PREFIX.length);
                targets.add(new Deletion.Target(Bytes.toString(q, TARGET_PREFIX.length, zero - TARGET_PREFIX.length),
                        java.util.Arrays.copyOfRange(q, zero + 1, q.length), CellUtil.cloneValue(c)));
            }
        }
        byte[] compact = r.getValue(F, COMPACT);
        return new Deletion(id, steps, device == null ? null : Bytes.toString(device),
                previous == null ? null : Bytes.toString(previous), longOf(r.getValue(F, EVENTS)),
                longOf(r.getValue(F, PROFILE)), targets, compact == null ? null : Instant.ofEpochMilli(Bytes.toLong(compact)));
    }

    private static long longOf(byte[] v) {
        return v == null || v.length != 8 ? 0 : Bytes.toLong(v);
    }

    private static int indexOfZero(byte[] q, int from) {
        for (int i = from; i < q.length; i++) {
            if (q[i] == 0) {
                return i;
            }
        }
        throw new IllegalArgumentException("malformed target qualifier");
    }
}
