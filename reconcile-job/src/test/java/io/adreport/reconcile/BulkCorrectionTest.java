package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.Recount.Cell;
import io.adreport.reconcile.Recount.Ev;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Corrections by bulk load (HFiles + {@code BulkLoadHFiles}) against the Put path, end to end:
 * mini cluster, local job runner, the full day-close protocol, expected counts from
 * {@link Recount} (no code shared with the job's counting). The same traffic and the same damage
 * go into two namespaces; one is corrected by Puts/Deletes, the other by bulk load.
 */
@ExtendWith(HBaseExtension.class)
class BulkCorrectionTest {
    private static final LocalDate D = LocalDate.of(2026, 11, 20);
    private static final Cube CUBE = ReconcileJobTest.smallCube();
    private static MiniHBase hbase;

    private final MutableClock clock = new MutableClock(D.plusDays(1).atTime(6, 0).toInstant(ZoneOffset.UTC));

    @BeforeAll
    static void cluster(MiniHBase cluster) {
        hbase = cluster;
    }

    @Test
    void bulk_and_put_paths_give_the_recount_on_a_day_with_many_wrong_and_stale_cells_and_a_rerun_writes_zero_cells() throws Exception {
        Day puts = damagedDay("puts");
        Day bulk = damagedDay("bulk");
        Map<Cell, Long> exact = puts.live.oracle().exact(puts.live.stored(), D);
        assertEquals(exact, bulk.live.oracle().exact(bulk.live.stored(), D), "the same traffic in both namespaces");

        DriftReport byPuts = puts.reconciler("-1").reconcile(D, false, null);
        DriftReport byBulk = bulk.reconciler("0").reconcile(D, false, null);

        assertEquals(exact, longs(puts.live.cellsOfDay(D)), "Put path: every cell of D equals the recount");
        assertEquals(exact, longs(bulk.live.cellsOfDay(D)), "bulk path: every cell of D equals the recount");
        DriftReport.Totals p = byPuts.totals();
        DriftReport.Totals b = byBulk.totals();
        assertTrue(p.cellsCorrected() > 500, "many cells were wrong: " + p.cellsCorrected());
        assertTrue(p.cellsDeleted() >= 40, "stale cells (stored, recount zero) existed: " + p.cellsDeleted());
        assertEquals(List.of(p.cellsChecked(), p.cellsCorrected(), p.cellsDeleted(), p.absoluteDrift(), p.maxCellDrift()),
                List.of(b.cellsChecked(), b.cellsCorrected(), b.cellsDeleted(), b.absoluteDrift(), b.maxCellDrift()),
                "both paths found the same differences");
        assertEquals(0, p.cellsBulkLoaded(), "-1: never bulk load");
        assertEquals(b.cellsCorrected(), b.cellsBulkLoaded(), "0: every correction bulk-loaded, deletions included");

        // The loaded files survive a flush and a major compaction: the delete markers keep masking the stale cells.
        for (String rollup : Recount.ROLLUPS.keySet()) {
            hbase.util().flush(bulk.layout.counterTable(rollup));
            hbase.util().compact(bulk.layout.counterTable(rollup), true);
        }
        assertEquals(exact, longs(bulk.live.cellsOfDay(D)), "after a major compaction");

        // A re-run over the corrected day writes no cell, on either path.
        Map<String, String> reconciled = bulk.live.snapshot();
        DriftReport again = bulk.reconciler("0").reconcile(D, false, null);
        assertEquals(reconciled, bulk.live.snapshot(), "a re-run writes zero cells (values and timestamps unchanged)");
        assertEquals(0, again.totals().cellsCorrected());
        assertEquals(0, again.totals().cellsBulkLoaded());
        assertEquals(b.cellsChecked() - b.cellsDeleted(), again.totals().cellsChecked());
        Map<String, String> byPutsReconciled = puts.live.snapshot();
        assertEquals(0, puts.reconciler("-1").reconcile(D, false, null).totals().cellsCorrected());
        assertEquals(byPutsReconciled, puts.live.snapshot());
    }

    @Test
    void the_number_of_differing_cells_chooses_the_path_few_stay_puts_many_are_bulk_loaded() throws Exception {
        Day day = damagedDay("auto");
        Map<Cell, Long> exact = day.live.oracle().exact(day.live.stored(), D);
        // Threshold 100 per reduce task; each of the 2 tasks has hundreds of corrections here.
        DriftReport many = day.reconciler("100").reconcile(D, false, null);
        assertTrue(many.totals().cellsCorrected() > 500);
        assertEquals(many.totals().cellsCorrected(), many.totals().cellsBulkLoaded(), "many corrections: bulk load");
        assertEquals(exact, longs(day.live.cellsOfDay(D)));

        // Later one impression counted twice (48 cells) and one ghost (stale cells): a few Puts and Deletes, no files.
        List<Ev> imps = day.live.stored().stream().filter(e -> e.type().equals("impression") && e.day().equals(D)).toList();
        day.live.increment(day.live.cellsNow(imps.get(0)), 1); // a replayed flush: counted twice
        day.live.increment(day.live.cellsNow(ghost("late-ghost", D.atTime(12, 0).toInstant(ZoneOffset.UTC))), 1);
        DriftReport few = day.reconciler("100").reconcile(D, false, null);
        assertTrue(few.totals().cellsCorrected() >= 48 && few.totals().cellsCorrected() < 100, "few: " + few.totals().cellsCorrected());
        assertTrue(few.totals().cellsDeleted() >= 1);
        assertEquals(0, few.totals().cellsBulkLoaded(), "few corrections: Puts and Deletes");
        assertEquals(exact, longs(day.live.cellsOfDay(D)));
    }

    @Test
    void a_bulk_load_of_a_day_that_was_not_closed_fails_loudly_and_loads_nothing() throws Exception {
        Day day = damagedDay("unclosed");
        Map<String, String> before = day.live.snapshot();
        DayStatusStore meta = new DayStatusStore(hbase.connection(), day.layout, clock);
        assertEquals(DayStatus.LIVE, meta.day(D).status(), "nobody closed the day: aggregators may still count it");
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(hbase.configuration());
        ReconcileConfig.of(Map.of("reconcile.bulk.min.cells", "0", "reconcile.splits", "2", "reconcile.reducers", "2",
                "reconcile.tmp.dir", "target/reconcile-tmp")).applyTo(conf);

        // The job alone, without the day-close protocol: its reduce tasks refuse to load.
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> Reconciler.run(conf, day.layout, D, false));
        assertTrue(e.getMessage().contains("failed"), e.getMessage());
        assertEquals(before, day.live.snapshot(), "no correction was loaded");
        assertEquals(DayStatus.LIVE, meta.day(D).status());

        // Through the protocol the same day is loaded.
        day.reconciler("0").reconcile(D, false, null);
        assertEquals(day.live.oracle().exact(day.live.stored(), D), longs(day.live.cellsOfDay(D)));
    }

    @Test
    void live_counts_in_writer_cells_are_summed_and_wrong_or_crowded_metrics_are_folded_into_the_base_cell_on_every_path() throws Exception {
        Day puts = damagedDay("wputs");
        Day bulk = damagedDay("wbulk");
        Day held = damagedDay("wheld"); // held by the task, then Puts at its end (the default for a day this size)
        Day switched = damagedDay("wswitch"); // held, then HFiles from the 50th on
        Map<Cell, Long> exact = puts.live.oracle().exact(puts.live.stored(), D);
        for (Day day : List.of(puts, bulk, held, switched)) {
            day.live.splitIntoWriterCells(D, new Random(5));
        }
        Map<Cell, Long> before = puts.live.sumsOfDay(D);
        for (Day day : List.of(bulk, held, switched)) {
            assertEquals(before, day.live.sumsOfDay(D), "the same cells in every namespace");
        }
        Map<Cell, Integer> withWriters = puts.live.writerCellsOfDay(D);
        Set<Cell> wrong = new java.util.HashSet<>(before.keySet());
        wrong.addAll(exact.keySet());
        wrong.removeIf(c -> java.util.Objects.equals(before.get(c), exact.get(c)));
        Map<Cell, Integer> rightWithWriters = new HashMap<>(withWriters);
        rightWithWriters.keySet().removeAll(wrong);
        Map<Cell, Integer> kept = new HashMap<>(rightWithWriters);
        kept.values().removeIf(n -> n > 4); // more than four writer cells: folded although right
        assertTrue(withWriters.keySet().stream().anyMatch(wrong::contains), "some wrong metrics hold writer cells");
        assertTrue(kept.size() > 100, "many right metrics hold a few writer cells: " + kept.size());
        assertTrue(rightWithWriters.size() - kept.size() > 50, "many right metrics hold six: " + (rightWithWriters.size() - kept.size()));
        // A row with a fold is written again whole (a family marker and its base cells) when that is
        // fewer cells than a marker per folded or corrected cell and per writer cell of theirs: its
        // right metrics lose their few writer cells too.
        Map<String, Integer> perColumnCells = new HashMap<>();
        Map<String, Integer> valued = new HashMap<>();
        Set<String> folding = new java.util.HashSet<>();
        for (Cell c : before.keySet()) {
            int writers = withWriters.getOrDefault(c, 0);
            boolean fold = !wrong.contains(c) && writers > 4;
            if (wrong.contains(c) || fold) {
                perColumnCells.merge(c.rollup() + "/" + c.rowHex(), 1 + writers, Integer::sum);
            }
            if (fold) {
                folding.add(c.rollup() + "/" + c.rowHex());
            }
        }
        for (Cell c : wrong) {
            if (!before.containsKey(c)) {
                perColumnCells.merge(c.rollup() + "/" + c.rowHex(), 1, Integer::sum);
            }
        }
        exact.forEach((c, v) -> {
            if (v != 0) {
                valued.merge(c.rollup() + "/" + c.rowHex(), 1, Integer::sum);
            }
        });
        Set<String> rewritten = new java.util.HashSet<>(folding);
        rewritten.removeIf(r -> 1 + valued.getOrDefault(r, 0) >= perColumnCells.getOrDefault(r, 0));
        kept.keySet().removeIf(c -> rewritten.contains(c.rollup() + "/" + c.rowHex()));
        assertTrue(!rewritten.isEmpty() && kept.size() > 50, "rows written again whole: " + rewritten.size() + ", rows that keep writer cells: " + kept.size());

        DriftReport byPuts = puts.reconciler("-1").reconcile(D, false, null);
        DriftReport byBulk = bulk.reconciler("0").reconcile(D, false, null);
        DriftReport byHeld = held.reconciler("1000000").reconcile(D, false, null);
        DriftReport bySwitch = switched.reconciler("50").reconcile(D, false, null);
        assertTrue(byPuts.totals().cellsCorrected() > 500);
        for (DriftReport r : List.of(byBulk, byHeld, bySwitch)) {
            assertEquals(byPuts.totals().cellsCorrected(), r.totals().cellsCorrected());
        }
        assertEquals(byBulk.totals().cellsCorrected(), byBulk.totals().cellsBulkLoaded(), "folds are neither corrections nor counted as such");
        assertEquals(0, byHeld.totals().cellsBulkLoaded());
        for (Day day : List.of(puts, bulk, held, switched)) {
            assertEquals(exact, day.live.sumsOfDay(D), "every metric of D sums to the recount");
            assertEquals(kept, day.live.writerCellsOfDay(D),
                    "writer cells are left where the sum was right (up to four, in a row not written again whole) and folded away where it was wrong or more");
        }
        for (String rollup : Recount.ROLLUPS.keySet()) { // the loaded delete markers keep masking the folded writer cells
            hbase.util().flush(bulk.layout.counterTable(rollup));
            hbase.util().compact(bulk.layout.counterTable(rollup), true);
        }
        assertEquals(exact, bulk.live.sumsOfDay(D), "after a major compaction");
        assertEquals(0, bulk.reconciler("0").reconcile(D, false, null).totals().cellsCorrected(), "a re-run finds nothing");
        assertEquals(0, puts.reconciler("-1").reconcile(D, false, null).totals().cellsCorrected(), "a re-run finds nothing");
        assertEquals(0, held.reconciler("1000000").reconcile(D, false, null).totals().cellsCorrected(), "a re-run finds nothing");
    }

    // --- a day with many wrong and stale cells -------------------------------------------------

    private final class Day {
        final TableLayout layout;
        final LivePath live;
        final HeartbeatStore heartbeats;

        Day(TableLayout layout) {
            this.layout = layout;
            this.live = new LivePath(hbase.connection(), layout);
            this.heartbeats = new HeartbeatStore(hbase.connection(), layout, clock);
        }

        /** A reconciler whose sleeper lets the one live aggregator acknowledge the close. */
        Reconciler reconciler(String bulkMinCells) {
            heartbeats.heartbeat("agg-1", Set.of());
            ReconcileConfig config = ReconcileConfig.of(Map.of("reconcile.splits", "2", "reconcile.reducers", "2",
                    "reconcile.grace.ms", "5000", "reconcile.poll.ms", "200", "reconcile.bulk.min.cells", bulkMinCells,
                    "reconcile.tmp.dir", "target/reconcile-tmp"));
            return new Reconciler(hbase.configuration(), hbase.connection(), layout, config, clock, d -> {
                heartbeats.heartbeat("agg-1", Set.of(D));
                clock.advance(d);
            });
        }
    }

    /**
     * The same traffic and damage whatever the namespace (fixed seed): half of D's events never
     * reached the live counters (a crashed flusher), some were counted twice, and 20 events that
     * were never stored raw left counter cells of their own (stale: the recount has none).
     */
    private Day damagedDay(String hint) throws Exception {
        TableLayout layout = new TableLayout(CUBE, hbase.freshNamespace(hint));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        Day day = new Day(layout);
        Random rnd = new Random(11);
        List<Ev> imps = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            Ev e = impression(rnd, "imp-" + i, at(rnd, D));
            imps.add(e);
            day.live.ingest(e, e.ts().plusSeconds(1), rnd.nextBoolean());
        }
        for (int i = 0; i < 30; i++) { // the day before: untouched by D's job
            Ev e = impression(rnd, "prev-" + i, at(rnd, D.minusDays(1)));
            day.live.ingest(e, e.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 120; i++) {
            Ev c = new Ev("click", "click-" + i, at(rnd, D), Map.of(), 0, 0, imps.get(rnd.nextInt(imps.size())).id());
            day.live.ingest(c, c.ts().plusSeconds(1), rnd.nextBoolean());
        }
        for (int i = 0; i < 30; i++) {
            Ev c = new Ev("conversion", "conv-" + i, at(rnd, D), Map.of(), 0, 1000 + rnd.nextInt(5000), imps.get(rnd.nextInt(imps.size())).id());
            day.live.ingest(c, c.ts().plusSeconds(1), true);
        }
        day.live.flush();
        for (int i = 0; i < 20; i++) {
            day.live.increment(day.live.cellsNow(imps.get(i)), 1);
            day.live.increment(day.live.cellsNow(ghost("ghost-" + i, at(rnd, D))), 1);
        }
        day.live.putCell("network", new io.adreport.schema.rowkey.RowKeyCodec(CUBE).counterKey(CUBE.rollup("network").orElseThrow(),
                io.adreport.schema.cube.Granularity.DAY, D.toEpochDay() * 1440, List.of()), "impressions", Bytes.toBytes(3)); // damaged
        return day;
    }

    /** An impression whose counter cells were incremented but whose raw row was never stored. */
    private static Ev ghost(String id, Instant ts) {
        return new Ev("impression", id, ts, Map.of("advertiser", "ghost", "campaign", id, "creative", "g", "publisher", "ghost-pub",
                "zone", "gz", "country", "ZZ", "deviceType", "mobile"), 700, 0, null);
    }

    private static Ev impression(Random rnd, String id, Instant ts) {
        Map<String, String> dims = new HashMap<>();
        dims.put("advertiser", "a" + rnd.nextInt(4));
        dims.put("campaign", "c" + rnd.nextInt(5));
        dims.put("creative", "cr" + rnd.nextInt(3));
        dims.put("publisher", "p" + rnd.nextInt(4));
        dims.put("zone", "z" + rnd.nextInt(3));
        dims.put("country", List.of("US", "DE", "FR", "IN").get(rnd.nextInt(4)));
        dims.put("deviceType", rnd.nextBoolean() ? "mobile" : "desktop");
        return new Ev("impression", id, ts, dims, 100 + rnd.nextInt(2000), 0, null);
    }

    private static Instant at(Random rnd, LocalDate day) {
        return day.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(rnd.nextInt(23 * 3600)).plusMillis(rnd.nextInt(1000));
    }

    private static Map<Cell, Long> longs(Map<Cell, byte[]> cells) {
        Map<Cell, Long> out = new HashMap<>();
        cells.forEach((c, v) -> {
            assertEquals(8, v.length, "cell " + c + " holds an 8-byte long");
            out.put(c, Bytes.toLong(v));
        });
        return out;
    }
}
