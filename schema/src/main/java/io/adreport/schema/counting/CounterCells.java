package io.adreport.schema.counting;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.EventSpec;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.time.UtcDay;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The one addressing of counting, shared by the live aggregator and the nightly recount.
 *
 * <p>A counter delta of an event (which ones: {@link CounterFanout}'s rules) is addressed as a
 * cell: table index = rollup position in the cube, row key from {@link RowKeyCodec}, UTC epoch
 * day of its bucket, column index = metric position (qualifier {@link #qualifier}). The row key is
 * built once per (rollup, granularity, bucket) and reused across the metrics of that row.
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

    /** One candidate target row of a join event: the raw key and its UTC epoch day. */
    public record JoinTarget(byte[] rawKey, long epochDay) {
    }

    private final Cube cube;
    private final RowKeyCodec codec;
    private final CounterFanout fanout;
    private final EventSpec.Join join;
    private final Map<Rollup, Integer> tableIndex = new IdentityHashMap<>(); // a record's hashCode walks its lists: per delta too costly
    private final Map<String, Integer> columnIndex = new HashMap<>();
    private final byte[][] qualifiers;

    public CounterCells(Cube cube, RowKeyCodec codec) {
        this.cube = cube;
        this.codec = codec;
        this.fanout = new CounterFanout(cube);
        this.join = cube.event().join();
        List<Rollup> rollups = cube.rollups();
        for (int i = 0; i < rollups.size(); i++) {
            tableIndex.put(rollups.get(i), i);
        }
        List<Metric> metrics = cube.metrics();
        qualifiers = new byte[metrics.size()][];
        for (int i = 0; i < metrics.size(); i++) {
            columnIndex.put(metrics.get(i).name(), i);
            qualifiers[i] = Bytes.toBytes(metrics.get(i).name());
        }
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

    /** Emits every counter cell delta of {@code e}; returns how many. */
    public int forEach(Event e, boolean attributed, CellSink sink) {
        int[] n = {0};
        // Of the previous delta: rollup, granularity, row key, dimension values (the fan-out hands
        // one list per rollup to all its granularities), encoded values; and salt, table index, bucket, day.
        Object[] last = new Object[5];
        long[] lastBucket = {Long.MIN_VALUE, 0};
        int[] lastRollup = {0, 0}; // salt, table index
        fanout.fanOut(e, attributed, (Rollup r, Granularity g, long bucket, List<String> values, String metric, long delta) -> {
            byte[] row;
            if (last[0] == r && last[1] == g && lastBucket[0] == bucket) {
                row = (byte[]) last[2];
            } else {
                if (last[0] != r || last[3] != values) { // the values' bytes and the salt depend on the rollup and values only
                    last[4] = codec.counterValues(r, values);
                    lastRollup[0] = codec.counterSalt(r, (byte[]) last[4]);
                    lastRollup[1] = tableIndex.get(r);
                }
                row = codec.counterKey(g, bucket, (byte[]) last[4], lastRollup[0]);
                last[0] = r;
                last[1] = g;
                last[2] = row;
                last[3] = values;
                lastBucket[0] = bucket;
                lastBucket[1] = UtcDay.epochDayOfBucketMinute(bucket);
            }
            sink.cell(lastRollup[1], row, (int) lastBucket[1], columnIndex.get(metric), delta);
            n[0]++;
        });
        return n[0];
    }
}
