package io.adreport.schema.counting;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.time.UtcDay;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The counter cells of a group of events (one group commit), summed per distinct projection
 * before any key is built; {@link CounterCells#group} makes one, {@link #emit} addresses it.
 *
 * <p>Why: an event moves ~24 rows (every granularity of every rollup) and most of them are rows
 * other events of the group move too (every event of a campaign and quarter hour moves the same
 * campaign rows). Addressed one event at a time, each of those rows costs the values' encoding,
 * a CRC32C salt, a key array per granularity and a hash of the key bytes to sum it; here an event
 * costs, per rollup, a hash of its projected values (a String caches its hash) and one map probe
 * without any allocation when the projection is known. Keys are built once per distinct row.
 *
 * <p>Two steps. {@code add}: each event's deltas (by {@link CounterFanout}'s rules) are summed per
 * (rollup, projected values, finest stored bucket). {@link #emit}: projections of one
 * (rollup, values) form a series whose values are encoded and salted once; each stored
 * granularity's rows of the series are summed (the 15-minute rows are the projections
 * themselves, an hour or day row sums the projections inside it) and each row is emitted once,
 * its touched columns one after another with the same key array. The cells equal the per-event
 * {@link CounterCells#forEach} cells summed per (table, row, column): the same rules, the same
 * codec calls, and a coarser bucket taken from a projection's first event time as the per-event
 * path takes it from each event's time. That is exact because buckets are aligned to the epoch
 * and every stored width is a multiple of its rollup's finest ({@link Plan} checks it), so
 * events with equal finest buckets have equal buckets at every stored granularity.
 *
 * <p>Memory: one entry per distinct projection of the group, at most events × rollups.
 *
 * <p>Not thread-safe: one writer thread builds it, emits it, and drops it.
 */
public final class GroupedCells {

    /** Per cube and computed once: the rollups by table index and the dimensions they project. */
    static final class Plan {
        final Rollup[] rollups;
        final Granularity[] finest;
        final Granularity[][] granularities;
        /** Each dimension any rollup names, resolved once per event. */
        final String[] dimensions;
        /** Per table: positions in {@link #dimensions} of the rollup's dimensions, in key order. */
        final int[][] projection;
        final int columns;

        Plan(Cube cube) {
            List<Rollup> list = cube.rollups();
            int n = list.size();
            rollups = list.toArray(Rollup[]::new);
            finest = new Granularity[n];
            granularities = new Granularity[n][];
            projection = new int[n][];
            Map<String, Integer> positions = new LinkedHashMap<>();
            for (int t = 0; t < n; t++) {
                Rollup r = rollups[t];
                finest[t] = r.finest();
                granularities[t] = r.granularities().toArray(Granularity[]::new);
                for (Granularity g : granularities[t]) {
                    if (g.minutes() % finest[t].minutes() != 0) {
                        throw new IllegalArgumentException("rollup " + r.name() + ": granularity " + g.label()
                                + " must be a multiple of its finest, " + finest[t].label()
                                + ", for a group's finest bucket to fix its " + g.label() + " bucket");
                    }
                }
                projection[t] = new int[r.dimensions().size()];
                for (int k = 0; k < projection[t].length; k++) {
                    String d = r.dimensions().get(k);
                    Integer at = positions.get(d);
                    if (at == null) {
                        at = positions.size();
                        positions.put(d, at);
                    }
                    projection[t][k] = at;
                }
            }
            dimensions = positions.keySet().toArray(String[]::new);
            columns = cube.metrics().size();
        }
    }

    /** (table, projected values, finest bucket): mutable only as the reused lookup probe. */
    private static final class Key {
        int table;
        String[] values;
        long bucket;
        int hash;

        Key(int table, String[] values, long bucket, int hash) {
            this.table = table;
            this.values = values;
            this.bucket = bucket;
            this.hash = hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && k.table == table && k.bucket == bucket
                    && Arrays.equals(k.values, values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** One distinct projection's summed deltas; {@code ts} the first event's time. */
    private static final class Sums {
        final Key key;
        final Instant ts;
        final long[] deltas;
        int touched;

        Sums(Key key, Instant ts, int columns) {
            this.key = key;
            this.ts = ts;
            this.deltas = new long[columns];
        }

        void add(long[] from, int mask) {
            for (int bits = mask; bits != 0; bits &= bits - 1) {
                int c = Integer.numberOfTrailingZeros(bits);
                deltas[c] += from[c];
            }
            touched |= mask;
        }
    }

    private final Plan plan;
    private final CounterFanout fanout;
    private final RowKeyCodec codec;
    private final HashMap<Key, Sums> projections = new HashMap<>();
    private final List<Sums> order = new ArrayList<>();
    private int deltas;

    // Reused for every event of the group: its deltas, its resolved dimension values, and one
    // lookup probe with one values array per table.
    private final long[] eventDeltas;
    private final String[] resolved;
    private final String[][] probeValues;
    private final Key probe = new Key(0, null, 0, 0);

    GroupedCells(Plan plan, CounterFanout fanout, RowKeyCodec codec, List<? extends CounterCells.Counted> group) {
        this.plan = plan;
        this.fanout = fanout;
        this.codec = codec;
        this.eventDeltas = new long[plan.columns];
        this.resolved = new String[plan.dimensions.length];
        this.probeValues = new String[plan.rollups.length][];
        for (int t = 0; t < plan.rollups.length; t++) {
            probeValues[t] = new String[plan.projection[t].length];
        }
        for (CounterCells.Counted c : group) {
            add(c.event(), c.attributed());
        }
    }

    private void add(Event e, boolean attributed) {
        int mask = fanout.deltas(e, attributed, eventDeltas);
        if (mask == 0) {
            return;
        }
        boolean unattributed = fanout.isUnattributed(e, attributed);
        for (int k = 0; k < resolved.length; k++) {
            resolved[k] = CounterFanout.value(e, plan.dimensions[k]);
        }
        int metrics = Integer.bitCount(mask);
        Granularity lastFinest = null;
        long bucket = 0;
        for (int t = 0; t < plan.rollups.length; t++) {
            if (!CounterFanout.receives(plan.rollups[t], unattributed)) {
                continue;
            }
            if (plan.finest[t] != lastFinest) {
                lastFinest = plan.finest[t];
                bucket = lastFinest.bucketMinute(e.ts());
            }
            String[] values = probeValues[t];
            int[] from = plan.projection[t];
            int h = 31 * t + Long.hashCode(bucket);
            for (int k = 0; k < from.length; k++) {
                values[k] = resolved[from[k]];
                h = 31 * h + values[k].hashCode();
            }
            probe.table = t;
            probe.values = values;
            probe.bucket = bucket;
            probe.hash = h;
            Sums s = projections.get(probe);
            if (s == null) {
                Key key = new Key(t, values.clone(), bucket, h);
                s = new Sums(key, e.ts(), plan.columns);
                projections.put(key, s);
                order.add(s);
            }
            s.add(eventDeltas, mask);
            deltas += metrics * plan.granularities[t].length;
        }
    }

    /** The deltas the group's events make one by one (what {@link CounterCells#forEach} would emit), before summing. */
    public int deltas() {
        return deltas;
    }

    /** Distinct projections (rollup, values, finest bucket) of the group. */
    public int projections() {
        return order.size();
    }

    /**
     * Emits each distinct counter row of the group once, its summed cells one after another with
     * the same key array; returns the cells emitted. A column touched by the group is emitted
     * even when its deltas summed to 0, as the per-event path's sums would hold it.
     */
    public int emit(CounterCells.CellSink sink) {
        // Series: the projections of one (table, values), in first-touched order.
        Map<Key, List<Sums>> series = new LinkedHashMap<>();
        for (Sums s : order) {
            Key k = s.key;
            Key seriesKey = new Key(k.table, k.values, 0, 31 * k.table + Arrays.hashCode(k.values));
            series.computeIfAbsent(seriesKey, x -> new ArrayList<>(1)).add(s);
        }
        int cells = 0;
        for (Map.Entry<Key, List<Sums>> e : series.entrySet()) {
            int table = e.getKey().table;
            Rollup r = plan.rollups[table];
            List<Sums> parts = e.getValue();
            byte[] encoded = codec.counterValues(r, Arrays.asList(e.getKey().values));
            int salt = codec.counterSalt(r, encoded);
            for (Granularity g : plan.granularities[table]) {
                if (parts.size() == 1 || g == plan.finest[table]) {
                    for (Sums s : parts) { // one row each: distinct finest buckets
                        cells += emitRow(sink, table, g, g.bucketMinute(s.ts), encoded, salt, s.deltas, s.touched);
                    }
                    continue;
                }
                Map<Long, Sums> rows = new LinkedHashMap<>();
                for (Sums s : parts) {
                    long bucket = g.bucketMinute(s.ts);
                    Sums row = rows.get(bucket);
                    if (row == null) {
                        row = new Sums(null, s.ts, plan.columns);
                        rows.put(bucket, row);
                    }
                    row.add(s.deltas, s.touched);
                }
                for (Map.Entry<Long, Sums> row : rows.entrySet()) {
                    cells += emitRow(sink, table, g, row.getKey(), encoded, salt, row.getValue().deltas, row.getValue().touched);
                }
            }
        }
        return cells;
    }

    private int emitRow(CounterCells.CellSink sink, int table, Granularity g, long bucket, byte[] encoded, int salt,
                        long[] sums, int touched) {
        byte[] row = codec.counterKey(g, bucket, encoded, salt);
        int day = (int) UtcDay.epochDayOfBucketMinute(bucket);
        for (int bits = touched; bits != 0; bits &= bits - 1) {
            int c = Integer.numberOfTrailingZeros(bits);
            sink.cell(table, row, day, c, sums[c]);
        }
        return Integer.bitCount(touched);
    }
}
