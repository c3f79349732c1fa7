package io.adreport.schema.counting;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one definition of which counters an event moves, shared by the live aggregator and the
 * nightly recount so that both count by the same rules.
 *
 * <p>Rules: a metric applies when its event type matches (or it has none) and, for
 * {@code unattributed} metrics, when the event is a join event whose target was not found. A
 * rollup receives the event unless the event is an unattributed join event and the rollup has
 * dimensions (its dimensions are unknown until the nightly job attributes it). Missing dimension
 * values count under the empty value "". Every stored granularity of the rollup receives the
 * same deltas.
 */
public final class CounterFanout {

    /** Receives one counter delta. */
    @FunctionalInterface
    public interface Sink {
        void add(Rollup rollup, Granularity granularity, long bucketMinute, List<String> values, String metric, long delta);
    }

    private final Cube cube;
    /** {@link #maxCellsPerEvent} of each declared type, computed once: admission asks it per event. */
    private final Map<String, Integer> maxCellsByType;
    /** The bound for an event without a type (a cube without a type field has only these). */
    private final int maxCellsUntyped;

    public CounterFanout(Cube cube) {
        this.cube = cube;
        Map<String, Integer> bounds = new HashMap<>();
        for (String type : cube.event().types()) {
            bounds.put(type, boundOf(cube, type));
        }
        this.maxCellsByType = Map.copyOf(bounds);
        this.maxCellsUntyped = boundOf(cube, null);
    }

    /** True when the event is a join event (its dimensions come from a target). */
    public boolean isJoinEvent(Event e) {
        return cube.event().join() != null && cube.event().join().appliesTo(e.type());
    }

    /**
     * An upper bound of the deltas {@link #fanOut} emits for one event of {@code type}: every
     * granularity of every rollup times the metrics of that type (or of any type). Ingest reserves
     * this much room in the counter buffer before it stores an event, so the buffer's cell bound
     * holds whatever the events turn out to touch. A null {@code type} (a cube without a type
     * field) is bounded by the metrics that apply to every type.
     */
    public int maxCellsPerEvent(String type) {
        if (type == null) {
            return maxCellsUntyped;
        }
        Integer known = maxCellsByType.get(type);
        return known != null ? known : boundOf(cube, type);
    }

    private static int boundOf(Cube cube, String type) {
        long metrics = cube.metrics().stream().filter(m -> m.eventType() == null || m.eventType().equals(type)).count();
        int rows = cube.rollups().stream().mapToInt(r -> r.granularities().size()).sum();
        return Math.toIntExact(metrics * rows);
    }

    /**
     * The metrics {@code e} moves and by how much: their column indexes (positions in the cube's
     * metric list) into {@code columns} and their deltas into {@code deltas}, in metric order;
     * returns how many (0: the event moves no counter). Both arrays hold at least the cube's metric
     * count. Allocates nothing: the per-event half of the rules, which {@link #fanOut} and
     * {@code CounterCells} share.
     *
     * @param attributed for join events: whether the target was found and {@code e} carries its
     *                   dimensions; ignored for other events
     */
    public int deltas(Event e, boolean attributed, int[] columns, long[] deltas) {
        boolean unattributed = unattributed(e, attributed);
        List<Metric> metrics = cube.metrics();
        int n = 0;
        for (int i = 0; i < metrics.size(); i++) {
            Metric m = metrics.get(i);
            if (m.eventType() != null && !m.eventType().equals(e.type())) {
                continue;
            }
            if (m.unattributed() && !unattributed) {
                continue;
            }
            long delta = m.kind() == Metric.Kind.COUNT ? 1 : e.number(m.field());
            if (delta == 0) {
                continue;
            }
            columns[n] = i;
            deltas[n] = delta;
            n++;
        }
        return n;
    }

    /** True when {@code e} is a join event whose target was not found (its dimensions are unknown). */
    public boolean unattributed(Event e, boolean attributed) {
        return !attributed && isJoinEvent(e);
    }

    /**
     * Whether rollup {@code r} receives an event that moves some counter: every rollup does,
     * except that an {@link #unattributed} join event reaches only rollups without dimensions.
     * The per-rollup half of the rules.
     */
    public boolean receives(Rollup r, boolean unattributed) {
        return !unattributed || r.dimensions().isEmpty();
    }

    /**
     * Emits every counter delta of {@code e}, one by one with its rollup, granularity, bucket,
     * dimension values and metric name (the readable form of the rules, for tests and tools; the
     * counting paths go through {@code CounterCells.forEachRow}, which allocates nothing per delta).
     *
     * @param attributed for join events: whether the target was found and {@code e} carries its
     *                   dimensions; ignored for other events
     */
    public void fanOut(Event e, boolean attributed, Sink sink) {
        List<Metric> metrics = cube.metrics();
        int[] columns = new int[metrics.size()];
        long[] deltas = new long[metrics.size()];
        int n = deltas(e, attributed, columns, deltas);
        if (n == 0) {
            return;
        }
        boolean unattributed = unattributed(e, attributed);
        for (Rollup r : cube.rollups()) {
            if (!receives(r, unattributed)) {
                continue;
            }
            List<String> values = new ArrayList<>(r.dimensions().size());
            for (String d : r.dimensions()) {
                values.add(e.dimensions().getOrDefault(d, ""));
            }
            List<String> frozen = List.copyOf(values);
            for (Granularity g : r.granularities()) {
                long bucket = g.bucketMinute(e.ts());
                for (int i = 0; i < n; i++) {
                    sink.add(r, g, bucket, frozen, metrics.get(columns[i]).name(), deltas[i]);
                }
            }
        }
    }
}
