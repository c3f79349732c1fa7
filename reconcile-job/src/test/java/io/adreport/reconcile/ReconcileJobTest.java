package io.adreport.reconcile;

import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.Recount.Cell;
import io.adreport.reconcile.Recount.Ev;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reconcile job end to end: mini cluster, local job runner, live path simulated with the
 * schema classes, expected counts from {@link Recount} (which shares nothing with the job's
 * counting code).
 */
@ExtendWith(HBaseExtension.class)
class ReconcileJobTest {
    private static final LocalDate D = LocalDate.of(2026, 11, 20);
    /** The ads cube with 4 salt buckets: fewer regions to create and ranges to read in tests. */
    private static final Cube CUBE = smallCube();
    private static final RowKeyCodec KEYS = new RowKeyCodec(CUBE);
    private static MiniHBase hbase;

    private final Random rnd = new Random(42);
    private final MutableClock clock = new MutableClock(D.plusDays(1).atTime(6, 0).toInstant(ZoneOffset.UTC));

    @BeforeAll
    static void cluster(MiniHBase cluster) {
        hbase = cluster;
    }

    @Test
    void a_damaged_day_is_recounted_exactly_dry_run_writes_nothing_and_a_second_run_writes_zero_cells() throws Exception {
        TableLayout layout = tables("faults");
        LivePath live = new LivePath(hbase.connection(), layout);
        DayStatusStore meta = new DayStatusStore(hbase.connection(), layout, clock);
        HeartbeatStore heartbeats = new HeartbeatStore(hbase.connection(), layout, clock);

        // Healthy traffic on D, the day before and the day after.
        List<Ev> imps = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Ev e = impression("imp-" + i, at(D));
            imps.add(e);
            live.ingest(e, e.ts().plusSeconds(1), true);
        }
        List<Ev> prev = new ArrayList<>();
        List<Ev> next = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Ev p = impression("prev-" + i, at(D.minusDays(1)));
            Ev n = impression("next-" + i, at(D.plusDays(1)));
            prev.add(p);
            next.add(n);
            live.ingest(p, p.ts().plusSeconds(1), true);
            live.ingest(n, n.ts().plusSeconds(1), true);
        }
        List<Ev> clicks = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            Ev c = click("click-" + i, at(D), imps.get(rnd.nextInt(imps.size())).id());
            clicks.add(c);
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 20; i++) {
            Ev c = conversion("conv-" + i, at(D), imps.get(rnd.nextInt(imps.size())).id(), 1000 + rnd.nextInt(5000));
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 10; i++) { // clicks of D on impressions of the day before: the join looks back
            Ev c = click("click-prev-" + i, at(D), prev.get(i).id());
            live.ingest(c, c.ts().plusSeconds(1), true);
            Ev n = click("click-next-" + i, at(D.plusDays(1)), next.get(i).id());
            live.ingest(n, n.ts().plusSeconds(1), true);
        }

        live.flush();

        // Faults.
        for (int i = 0; i < 15; i++) { // increments lost: the flusher was killed
            Ev e = impression("lost-imp-" + i, at(D));
            live.ingest(e, e.ts().plusSeconds(1), false);
        }
        for (int i = 0; i < 10; i++) {
            Ev c = click("lost-click-" + i, at(D), imps.get(rnd.nextInt(imps.size())).id());
            live.ingest(c, c.ts().plusSeconds(1), false);
        }
        Instant tenAm = D.atTime(10, 0).toInstant(ZoneOffset.UTC);
        Ev early = click("click-early", tenAm, "imp-late"); // its impression arrives an hour later
        live.ingest(early, tenAm, true);
        Ev lateImp = impression("imp-late", tenAm.minusSeconds(3600));
        live.ingest(lateImp, tenAm.plusSeconds(3600), true);
        for (int i = 0; i < 3; i++) { // impressions never seen
            Ev c = click("click-orphan-" + i, at(D), "imp-missing-" + i);
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 15; i++) { // late by hours: arrive after midnight; the last 5 after the day closed
            Ev e = impression("late-" + i, D.atTime(22, 0).toInstant(ZoneOffset.UTC).plusSeconds(i * 400L));
            live.ingest(e, D.plusDays(1).atTime(3, 0).toInstant(ZoneOffset.UTC).plusSeconds(i * 60L), i < 10);
        }
        live.flush();
        live.setDuplicates(imps.get(0), 1);
        live.setDuplicates(imps.get(1), 2);
        live.setDuplicates(imps.get(2), 1);
        live.setDuplicates(clicks.get(0), 3);
        live.increment(live.cellsNow(imps.get(3)), 1); // a replayed flush counted twice

        long dayStart = D.toEpochDay() * 1440;
        byte[] networkDay = KEYS.counterKey(CUBE.rollup("network").orElseThrow(), Granularity.DAY, dayStart, List.of());
        live.deleteCell("network", networkDay, "impressions");
        Ev i4 = imps.get(4);
        byte[] campaignHour = KEYS.counterKey(CUBE.rollup("campaign").orElseThrow(), Granularity.HOUR,
                Granularity.HOUR.bucketMinute(i4.ts()), List.of(i4.dims().get("advertiser"), i4.dims().get("campaign")));
        live.deleteCell("campaign", campaignHour, "impressions");
        live.deleteCell("campaign", campaignHour, "spendMicros");
        Ev i5 = imps.get(5);
        live.putCell("advertiser", KEYS.counterKey(CUBE.rollup("advertiser").orElseThrow(), Granularity.DAY, dayStart,
                List.of(i5.dims().get("advertiser"))), "impressions", Bytes.toBytes(123_456_789L));
        Ev i6 = imps.get(6);
        live.putCell("country", KEYS.counterKey(CUBE.rollup("country").orElseThrow(), Granularity.MINUTES_15,
                Granularity.MINUTES_15.bucketMinute(i6.ts()), List.of(i6.dims().get("advertiser"), i6.dims().get("country"))),
                "impressions", Bytes.toBytes(7)); // 4 bytes: not a counter
        live.putCell("campaign", KEYS.counterKey(CUBE.rollup("campaign").orElseThrow(), Granularity.MINUTES_15, dayStart + 300,
                List.of("a9", "ghost")), "impressions", Bytes.toBytes(5L));
        live.putCell("network", networkDay, "unattributedConversions", Bytes.toBytes(2L));
        live.putCell("network", networkDay, "legacy", Bytes.toBytes(42L)); // not a metric: left alone
        live.putRaw(KEYS.rawKey("impression", "broken", D.toEpochDay()), Bytes.toBytes("not json"), at(D));
        Ev misplaced = impression("misplaced", at(D.minusDays(1)));
        live.putRaw(KEYS.rawKey("impression", "misplaced", D.toEpochDay()), RawEventCodec.toJson(LivePath.toEvent(misplaced)), at(D));
        // Damage on the other days, which the job must not touch.
        live.deleteCell("network", KEYS.counterKey(CUBE.rollup("network").orElseThrow(), Granularity.DAY, dayStart + 1440, List.of()), "impressions");
        live.putCell("network", KEYS.counterKey(CUBE.rollup("network").orElseThrow(), Granularity.DAY, dayStart - 1440, List.of()),
                "clicks", Bytes.toBytes(999L));

        // What the recount must produce, and the drift the damage amounts to.
        List<Ev> all = live.stored();
        Map<Cell, Long> exact = live.oracle().exact(all, D);
        Map<String, long[]> drift = expectedDrift(exact, live.cellsOfDay(D));
        long eventsOfD = all.stream().filter(e -> e.day().equals(D)).count();
        Map<String, String> before = live.snapshot();

        // Dry run: the same figures, nothing written, the day not closed.
        Reconciler reconciler = reconciler(layout, d -> {
            heartbeats.heartbeat("agg-1", Set.of(D)); // the aggregator stops D, flushes, acknowledges
            clock.advance(d);
        });
        heartbeats.heartbeat("agg-1", Set.of());
        DriftReport dry = reconciler.reconcile(D, true, null);
        assertEquals(before, live.snapshot(), "a dry run writes nothing");
        assertEquals(DayStatus.LIVE, meta.day(D).status());
        assertFigures(dry, drift, eventsOfD);
        assertTrue(dry.dryRun());

        // The real run.
        DriftReport report = reconciler.reconcile(D, false, null);
        assertFigures(report, drift, eventsOfD);
        assertEquals(List.of(), report.unacknowledged());
        Map<Cell, Long> after = longs(live.cellsOfDay(D));
        assertEquals(exact, after, "every counter cell of D equals the recount");
        assertEquals(otherDays(before, layout), otherDays(live.snapshot(), layout), "cells of other days are untouched");
        assertTrue(live.snapshot().keySet().stream().anyMatch(k -> k.endsWith("|legacy")), "foreign columns are left alone");
        DayState state = meta.day(D);
        assertEquals(DayStatus.RECONCILED, state.status());
        assertEquals(report, DriftReport.fromJson(state.driftJson()), "the stored report is the report");

        // A second run over unchanged data writes no cell.
        Map<String, String> reconciled = live.snapshot();
        DriftReport again = reconciler.reconcile(D, false, null);
        assertEquals(reconciled, live.snapshot(), "a second run writes zero cells");
        assertEquals(0, again.totals().cellsCorrected());
        assertEquals(0, again.totals().absoluteDrift());
        assertEquals(report.totals().cellsChecked() - report.totals().cellsDeleted(), again.totals().cellsChecked());
        assertEquals(eventsOfD, again.totals().eventsRead());
    }

    @Test
    void events_stored_for_the_day_while_the_job_runs_are_counted_exactly_by_the_next_run() throws Exception {
        TableLayout layout = tables("concurrent");
        LivePath live = new LivePath(hbase.connection(), layout);
        DayStatusStore meta = new DayStatusStore(hbase.connection(), layout, clock);
        HeartbeatStore heartbeats = new HeartbeatStore(hbase.connection(), layout, clock);
        List<Ev> imps = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Ev e = impression("imp-" + i, at(D));
            imps.add(e);
            live.ingest(e, e.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 40; i++) {
            Ev c = click("click-" + i, at(D), imps.get(rnd.nextInt(imps.size())).id());
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        live.flush();
        // A live aggregator that never acknowledges: the close proceeds after the grace period.
        heartbeats.heartbeat("agg-silent", Set.of());
        Reconciler reconciler = reconciler(layout, d -> {
            clock.advance(d);
            heartbeats.heartbeat("agg-silent", Set.of());
        });

        // While the job runs, events for D keep arriving; D is closed, so they are stored, not counted live.
        AtomicBoolean jobDone = new AtomicBoolean();
        AtomicInteger duringJob = new AtomicInteger();
        Random writerRnd = new Random(7);
        Thread writer = new Thread(() -> {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (meta.day(D).status() != DayStatus.CLOSING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            for (int k = 0; !jobDone.get() && k < 100 && System.nanoTime() < deadline; k++) {
                Ev c = click("during-click-" + k, at(D), "during-imp-" + k); // its impression comes right after
                live.ingest(c, clock.instant(), false);
                Ev e = impression("during-imp-" + k, at(D));
                live.ingest(e, clock.instant(), false);
                Ev c2 = click("during-click2-" + k, at(D), imps.get(writerRnd.nextInt(imps.size())).id());
                live.ingest(c2, clock.instant(), false);
                live.flush();
                duringJob.addAndGet(3);
                try {
                    Thread.sleep(30); // pace the trickle of late beacons over the job's run
                } catch (InterruptedException ex) {
                    return;
                }
            }
        }, "late-writer");
        writer.start();
        DriftReport first = reconciler.reconcile(D, false, null);
        jobDone.set(true);
        writer.join();
        assertTrue(duringJob.get() > 0, "events arrived while the job ran");
        assertEquals(List.of("agg-silent"), first.unacknowledged());

        DriftReport second = reconciler.reconcile(D, false, null);
        List<Ev> all = live.stored();
        assertEquals(live.oracle().exact(all, D), longs(live.cellsOfDay(D)), "the next run counts them exactly");
        assertEquals(all.size(), second.totals().eventsRead());
        assertEquals(0, second.totals().unattributed());
    }

    // --- helpers ------------------------------------------------------------------------------

    static Cube smallCube() {
        try (java.io.InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            String yaml = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return CubeLoader.parse("ads.yaml with 4 buckets", yaml.replace("Buckets: 16", "Buckets: 4"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private TableLayout tables(String hint) throws Exception {
        TableLayout layout = new TableLayout(CUBE, hbase.freshNamespace(hint));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        return layout;
    }

    private Reconciler reconciler(TableLayout layout, DayCloseProtocol.Sleeper sleeper) {
        // The smallest map buffer (1,000 cells: 142 rows of this cube): a map task drains its sums
        // many times, so the combiner and the reduce tasks add up several parts of one row.
        ReconcileConfig config = ReconcileConfig.of(Map.of("reconcile.splits", "2", "reconcile.reducers", "3", "reconcile.grace.ms", "5000",
                "reconcile.poll.ms", "200", "reconcile.tmp.dir", "target/reconcile-tmp", "reconcile.map.buffer.cells", "1000"));
        return new Reconciler(hbase.configuration(), hbase.connection(), layout, config, clock, sleeper);
    }

    private Instant at(LocalDate day) {
        return day.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(rnd.nextInt(23 * 3600)).plusMillis(rnd.nextInt(1000));
    }

    private Ev impression(String id, Instant ts) {
        Map<String, String> dims = new HashMap<>();
        dims.put("advertiser", "a" + rnd.nextInt(3));
        dims.put("campaign", "c" + rnd.nextInt(4));
        dims.put("creative", "cr" + rnd.nextInt(2));
        dims.put("publisher", "p" + rnd.nextInt(3));
        dims.put("zone", "z" + rnd.nextInt(2));
        dims.put("country", List.of("US", "DE", "FR").get(rnd.nextInt(3)));
        if (rnd.nextInt(10) > 0) { // some impressions have no device type: counted under ""
            dims.put("deviceType", rnd.nextBoolean() ? "mobile" : "desktop");
        }
        return new Ev("impression", id, ts, dims, 100 + rnd.nextInt(2000), 0, null);
    }

    private static Ev click(String id, Instant ts, String impressionId) {
        return new Ev("click", id, ts, Map.of(), 0, 0, impressionId);
    }

    private static Ev conversion(String id, Instant ts, String impressionId, long value) {
        return new Ev("conversion", id, ts, Map.of(), 0, value, impressionId);
    }

    /** Per rollup and "total": {checked, corrected, deleted, drift, max} from the cells as stored. */
    private static Map<String, long[]> expectedDrift(Map<Cell, Long> exact, Map<Cell, byte[]> stored) {
        Map<String, long[]> out = new HashMap<>();
        Set<Cell> all = new HashSet<>(exact.keySet());
        all.addAll(stored.keySet());
        for (Cell c : all) {
            long e = exact.getOrDefault(c, 0L);
            byte[] s = stored.get(c);
            boolean valid = s != null && s.length == 8;
            long sv = valid ? Bytes.toLong(s) : 0;
            boolean fix = e == 0 ? s != null : !valid || sv != e;
            for (String k : List.of(c.rollup(), "total")) {
                long[] f = out.computeIfAbsent(k, x -> new long[5]);
                f[0]++;
                if (fix) {
                    f[1]++;
                    f[2] += e == 0 ? 1 : 0;
                    f[3] += Math.abs(e - sv);
                    f[4] = Math.max(f[4], Math.abs(e - sv));
                }
            }
        }
        return out;
    }

    private static void assertFigures(DriftReport r, Map<String, long[]> drift, long eventsOfD) {
        assertEquals(D, r.day());
        DriftReport.Totals t = r.totals();
        assertEquals(eventsOfD, t.eventsRead(), "events read");
        assertEquals(7, t.duplicates(), "duplicates: the sum of e:dup");
        assertEquals(15, t.lateEvents(), "late: arrived after the end of D");
        assertEquals(3, t.unattributed(), "clicks whose impression is unknown");
        assertEquals(2, t.malformed(), "rows that are not an event of that key and day");
        long[] total = drift.get("total");
        assertEquals(total[0], t.cellsChecked(), "cells checked");
        assertEquals(total[1], t.cellsCorrected(), "cells corrected");
        assertEquals(total[2], t.cellsDeleted(), "cells deleted");
        assertEquals(total[3], t.absoluteDrift(), "absolute drift");
        assertEquals(total[4], t.maxCellDrift(), "max cell drift");
        assertEquals(Recount.ROLLUPS.keySet(), r.rollups().keySet());
        for (Map.Entry<String, DriftReport.RollupDrift> e : r.rollups().entrySet()) {
            long[] f = drift.get(e.getKey());
            DriftReport.RollupDrift rd = e.getValue();
            assertNotNull(f, e.getKey());
            assertEquals(List.of(f[0], f[1], f[2], f[3], f[4]),
                    List.of(rd.cellsChecked(), rd.cellsCorrected(), rd.cellsDeleted(), rd.absoluteDrift(), rd.maxCellDrift()), e.getKey());
            assertEquals(e.getKey().equals("network") ? eventsOfD : eventsOfD - 3, rd.events(), e.getKey() + " events");
        }
        assertTrue(t.cellsCorrected() >= 10, "the injected damage is found");
    }

    private static Map<Cell, Long> longs(Map<Cell, byte[]> cells) {
        Map<Cell, Long> out = new HashMap<>();
        cells.forEach((c, v) -> {
            assertEquals(8, v.length, "cell " + c + " holds an 8-byte long");
            out.put(c, Bytes.toLong(v));
        });
        return out;
    }

    private static Map<String, String> otherDays(Map<String, String> snapshot, TableLayout layout) {
        long from = D.toEpochDay() * 1440;
        Map<String, String> out = new java.util.TreeMap<>();
        snapshot.forEach((k, v) -> {
            long minute = KEYS.parseCounterKey(HexFormat.of().parseHex(k.split("\\|")[1])).bucketMinute();
            if (minute < from || minute >= from + 1440) {
                out.put(k, v);
            }
        });
        assertFalse(out.isEmpty());
        return out;
    }
}
