package io.adreport.schema.counting;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.EventSpec;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import io.adreport.schema.rowkey.KeyBytes;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.time.UtcDay;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The one addressing of counting, shared by the live aggregator and the nightly recount.
 *
 * <p>A counter delta of an event (which ones: {@link CounterFanout}'s rules) is addressed as a
 * cell: table index = rollup position in the cube, row key from {@link RowKeyCodec}, UTC epoch
 * day of its bucket, column index = metric position (qualifier {@link #qualifier}).
 *
 * <p><b>Counting without objects.</b> {@link #forEachRow} hands over an event's deltas a row at a
 * time: the row's key built in place in the caller's {@link Scratch} (the dimension values are
 * encoded and salted once per rollup, then only the six bytes of salt, granularity and bucket
 * change per granularity), and the event's metric columns and deltas in two primitive arrays
 * that every row of the event shares. Counting an event thus allocates nothing (an ASCII value
 * is copied char by char); a sink that keeps a key copies it ({@link CellSums} packs it into its
 * arena, the coalescing buffer copies a summed row once per group). {@link #forEach} is the
 * per-cell form of the same walk, with a key array per row, for the paths that want objects.
 *
 * <p>A join event's candidate targets are {@link #joinTargets}: the target's raw key on the
 * event's UTC day and each of the {@code lookbackDays} days before, newest first. The live
 * aggregator reads them in its group commit, the recount in its batched Gets; both then count the
 * event attributed (with the first found target's dimensions) or unattributed.
 *
 * <p>Thread-safe: immutable after construction; per-call state lives on the caller's stack.
 */
public final class CounterCells {

    /** Receives one addressed counter delta. */
    @FunctionalInterface
    public interface CellSink {
        void cell(int table, byte[] row, int epochDay, int column, long delta);
    }

    /**
     * Receives one counter row of an event with all its deltas: the row key is
     * {@code key[0, keyLength)} and the deltas are {@code deltas[i]} of metric column
     * {@code columns[i]} for {@code i < n}. The arrays belong to the caller's {@link Scratch} and
     * are valid during the call only.
     */
    @FunctionalInterface
    public interface RowSink {
        void row(int table, byte[] key, int keyLength, int epochDay, int[] columns, long[] deltas, int n);
    }

    /** One thread's reusable buffers for {@link #forEachRow}; not thread-safe. */
    public static final class Scratch {
        private byte[] key = new byte[256];
        private final CRC32C crc = new CRC32C();
        private final int[] columns;
        private final long[] deltas;

        private Scratch(int metrics) {
            columns = new int[metrics];
            deltas = new long[metrics];
        }
    }

    /** One candidate target row of a join event: the raw key and its UTC epoch day. */
    public record JoinTarget(byte[] rawKey, long epochDay) {
    }

    private final Cube cube;
    private final RowKeyCodec codec;
    private final CounterFanout fanout;
    private final EventSpec.Join join;
    private final Rollup[] rollups;
    private final byte[][] rollupPrefixes; // per table index: the rollup's name and 0x00, which the salt hashes first
    private final Map<String, Integer> columnIndex = new HashMap<>();
    private final byte[][] qualifiers;

    public CounterCells(Cube cube, RowKeyCodec codec) {
        this.cube = cube;
        this.codec = codec;
        this.fanout = new CounterFanout(cube);
        this.join = cube.event().join();
        this.rollups = cube.rollups().toArray(new Rollup[0]);
        this.rollupPrefixes = new byte[rollups.length][];
        for (int i = 0; i < rollups.length; i++) {
            rollupPrefixes[i] = RowKeyCodec.rollupPrefix(rollups[i]);
        }
        List<Metric> metrics = cube.metrics();
        qualifiers = new byte[metrics.size()][];
        for (int i = 0; i < metrics.size(); i++) {
            columnIndex.put(metrics.get(i).name(), i);
            qualifiers[i] = Bytes.toBytes(metrics.get(i).name());
        }
    }

    /** Fresh buffers for one thread's {@link #forEachRow} calls. */
    public Scratch scratch() {
        return new Scratch(qualifiers.length);
    }

    public CounterFanout fanout() {
        return fanout;
    }

    public int tables() {
        return cube.rollups().size();
    }

    public int columns() {
        return qualifiers.length;
    }

    /** Column qualifier of metric column {@code i}. */
    public byte[] qualifier(int column) {
        return qualifiers[column];
    }

    /** The base qualifiers of all metric columns, by column index (a copy); stored cells parse with {@link CounterValues}. */
    public byte[][] qualifiers() {
        return qualifiers.clone();
    }

    /** Column index of a metric, or -1 when it is no metric of the cube. */
    public int column(String metric) {
        Integer i = columnIndex.get(metric);
        return i == null ? -1 : i;
    }

    /** Table index of the rollup named {@code name}, or -1 when the cube has none of that name. */
    public int tableIndex(String name) {
        List<Rollup> rollups = cube.rollups();
        for (int i = 0; i < rollups.size(); i++) {
            if (rollups.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    public Rollup rollup(int table) {
        return cube.rollups().get(table);
    }

    /** True when the event is a join event (its dimensions come from a target). */
    public boolean isJoinEvent(Event e) {
        return fanout.isJoinEvent(e);
    }

    /**
     * The raw rows that may hold {@code e}'s join target, newest day first; empty when {@code e}
     * is not a join event or names no target.
     */
    public List<JoinTarget> joinTargets(Event e) {
        if (!fanout.isJoinEvent(e) || e.joinRef() == null) {
            return List.of();
        }
        long day = UtcDay.epochDayOf(e.ts());
        List<JoinTarget> out = new ArrayList<>(join.lookbackDays() + 1);
        for (int back = 0; back <= join.lookbackDays(); back++) {
            out.add(new JoinTarget(codec.rawKey(join.targetType(), e.joinRef(), day - back), day - back));
        }
        return out;
    }

    /**
     * Emits every counter row of {@code e} with its deltas (see {@link RowSink}), rollup by rollup
     * in cube order and each rollup's granularities in order; returns how many cells (row ×
     * metric deltas). Allocates nothing for ASCII dimension values.
     *
     * @param attributed for join events: whether the target was found and {@code e} carries its
     *                   dimensions; ignored for other events
     */
    public int forEachRow(Event e, boolean attributed, Scratch s, RowSink sink) {
        int n = fanout.deltas(e, attributed, s.columns, s.deltas);
        if (n == 0) {
            return 0;
        }
        int cells = 0;
        boolean unattributed = fanout.unattributed(e, attributed);
        Map<String, String> dimensions = e.dimensions();
        for (int t = 0; t < rollups.length; t++) {
            Rollup r = rollups[t];
            if (!fanout.receives(r, unattributed)) {
                continue;
            }
            List<String> names = r.dimensions();
            int room = RowKeyCodec.COUNTER_VALUES_OFFSET;
            for (int d = 0; d < names.size(); d++) {
                room += KeyBytes.maxTerminated(dimensions.getOrDefault(names.get(d), ""));
            }
            if (s.key.length < room) {
                s.key = new byte[Math.max(room, 2 * s.key.length)];
            }
            byte[] key = s.key;
            int end = RowKeyCodec.COUNTER_VALUES_OFFSET;
            for (int d = 0; d < names.size(); d++) {
                end = KeyBytes.putTerminated(key, end, dimensions.getOrDefault(names.get(d), ""));
            }
            int salt = codec.counterSalt(rollupPrefixes[t], key, RowKeyCodec.COUNTER_VALUES_OFFSET,
                    end - RowKeyCodec.COUNTER_VALUES_OFFSET, s.crc);
            for (Granularity g : r.granularities()) {
                long bucket = g.bucketMinute(e.ts());
                codec.counterKeyHead(key, g, bucket, salt);
                sink.row(t, key, end, (int) UtcDay.epochDayOfBucketMinute(bucket), s.columns, s.deltas, n);
                cells += n;
            }
        }
        return cells;
    }

    /**
     * Emits every counter cell delta of {@code e} (the walk of {@link #forEachRow}, a new key
     * array per row, shared by that row's cells); returns how many.
     */
    public int forEach(Event e, boolean attributed, CellSink sink) {
        return forEachRow(e, attributed, scratch(), (table, key, keyLength, epochDay, columns, deltas, n) -> {
            byte[] row = Arrays.copyOf(key, keyLength);
            for (int i = 0; i < n; i++) {
                sink.cell(table, row, epochDay, columns[i], deltas[i]);
            }
        });
    }
}
