package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.Recount.Ev;
import io.adreport.reconcile.topn.RankedIndexWriter;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reconciler writes the day's ranked index from the counters the job corrected: after a
 * damaged day is reconciled, its campaign lists equal the test's own count of the raw events,
 * best first, ties by dimension values; after late events and re-runs, the newest generation is
 * published and the one before the previous is gone; a re-run in which nothing differs keeps the
 * published generation (its content digest is unchanged), and the next change, whether marked
 * late by an aggregator (the reduce tasks write the entries) or found by the digests (a scan
 * writes them), replaces leftovers of a pass that died before publishing. The other days of the month are already
 * reconciled (with no traffic), so each reconcile of the day also (re)writes the month's lists,
 * which then equal the same count.
 */
@ExtendWith(HBaseExtension.class)
class RankedIndexHookTest {
    private static final LocalDate D = LocalDate.of(2026, 11, 12);
    private final Random rnd = new Random(1112);
    private final MutableClock clock = new MutableClock(D.plusDays(1).atTime(6, 0).toInstant(ZoneOffset.UTC));

    /**
     * {@code indexBulkMinEntries}: the default (the test's few hundred entries go as Puts) and 25,
     * so each reduce task writes its entries as several sorted runs of HFiles and bulk-loads them.
     */
    @ParameterizedTest(name = "reconcile.index.bulk.min.entries={0}")
    @ValueSource(strings = {"100000", "25"})
    void reconciling_a_day_publishes_its_exact_ranked_lists_and_a_re_run_replaces_them(String indexBulkMinEntries, MiniHBase hbase)
            throws Exception {
        boolean bulk = !indexBulkMinEntries.equals("100000");
        Cube cube = ReconcileJobTest.smallCube();
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("rankhook"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        LivePath live = new LivePath(hbase.connection(), layout, true); // counters as the coalesced aggregator writes them
        List<Ev> imps = new ArrayList<>();
        List<Ev> clicks = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Ev e = impression("imp-" + i);
            imps.add(e);
            live.ingest(e, e.ts().plusSeconds(1), i % 15 != 0); // every 15th lost by the live path
        }
        for (int i = 0; i < 90; i++) {
            Ev imp = imps.get(rnd.nextInt(imps.size()));
            Ev c = new Ev("click", "click-" + i, imp.ts().plusSeconds(5), Map.of(), 0, 0, imp.id());
            clicks.add(c);
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        live.flush();
        Reconciler reconciler = new Reconciler(hbase.configuration(), hbase.connection(), layout,
                ReconcileConfig.of(Map.of("reconcile.grace.ms", "0", "reconcile.splits", "2", "reconcile.tmp.dir", "target/reconcile-tmp",
                        ReconcileConfig.INDEX_BULK_MIN_ENTRIES, indexBulkMinEntries)),
                clock, clock::advance);
        DayStatusStore meta = new DayStatusStore(hbase.connection(), layout, clock);
        RankedIndexWriter writer = new RankedIndexWriter(hbase.connection(), layout);
        for (LocalDate d = D.withDayOfMonth(1); d.getMonth() == D.getMonth(); d = d.plusDays(1)) {
            if (!d.equals(D)) { // the rest of the month: reconciled, no traffic, empty lists
                meta.markClosing(d);
                writer.write(d);
                meta.markReconciled(d, "{}");
            }
        }
        assertEquals(0, monthGeneration(hbase, layout, cube.rollup("campaign").orElseThrow()));
        assertIndexPath(bulk, reconcile(reconciler));
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        assertEquals(1, generation(hbase, layout, campaign));
        assertLists(hbase, layout, campaign, 1, imps, clicks);
        assertEquals(1, monthGeneration(hbase, layout, campaign));

        for (int run = 2; run <= 3; run++) { // late impressions, stored after the close, then a re-run
            for (int i = 0; i < 25; i++) {
                Ev e = impression("late-" + run + "-" + i);
                imps.add(e);
                live.ingest(e, D.plusDays(1).atTime(7, 0).toInstant(ZoneOffset.UTC), false);
            }
            live.flush();
            reconciler.reconcile(D, false, null); // no late mark: the digests find the change, a scan writes the lists
            assertEquals(run, generation(hbase, layout, campaign));
            assertLists(hbase, layout, campaign, run, imps, clicks);
            assertEquals(run, monthGeneration(hbase, layout, campaign));
        }
        assertEquals(0, rows(hbase, layout, RankedIndexCodec.generationsRange(campaign, D, 0, 2)), "generation 1 survived");
        assertTrue(rows(hbase, layout, RankedIndexCodec.generationsRange(campaign, D, 2, 3)) > 0, "generation 2 is kept for readers");

        // A re-run in which nothing differs: the job's digests equal the published ones, so every
        // list (and the month built from them) keeps its generation, and no entry is written or deleted.
        long entriesBefore = rows(hbase, layout, RankedIndexCodec.generationsRange(campaign, D, 0, 100));
        reconciler.reconcile(D, false, null);
        assertEquals(3, generation(hbase, layout, campaign), "an unchanged day keeps its published generation");
        assertEquals(3, monthGeneration(hbase, layout, campaign), "an unchanged day keeps its month's lists");
        assertLists(hbase, layout, campaign, 3, imps, clicks);
        assertEquals(entriesBefore, rows(hbase, layout, RankedIndexCodec.generationsRange(campaign, D, 0, 100)));

        // A pass that died after writing part of generation 4 left an entry of it; then a raw row
        // is stored around the aggregators (no late mark: the day looks settled). The job's
        // digests differ, so the reconciler writes generation 4 by a scan, over the leftover.
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable())) {
            t.put(new org.apache.hadoop.hbase.client.Put(RankedIndexCodec.entryKey(campaign, D, 4, "impressions", null, 999,
                    List.of("a9", "c-orphan"))).addColumn(TableLayout.RANKED_FAMILY, RankedIndexCodec.VALUE_QUALIFIER, Bytes.toBytes(999L)));
        }
        Ev late = impression("late-4");
        imps.add(late);
        live.ingest(late, D.plusDays(1).atTime(8, 0).toInstant(ZoneOffset.UTC), false);
        live.flush();
        reconciler.reconcile(D, false, null);
        assertEquals(4, generation(hbase, layout, campaign));
        assertLists(hbase, layout, campaign, 4, imps, clicks);
        assertEquals(4, monthGeneration(hbase, layout, campaign));

        // A late event an aggregator marked (the day is not settled): the reduce tasks write
        // generation 5 themselves, again over a leftover of it.
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable())) {
            t.put(new org.apache.hadoop.hbase.client.Put(RankedIndexCodec.entryKey(campaign, D, 5, "clicks", "a1", 999,
                    List.of("a1", "c-orphan"))).addColumn(TableLayout.RANKED_FAMILY, RankedIndexCodec.VALUE_QUALIFIER, Bytes.toBytes(999L)));
        }
        late = impression("late-5");
        imps.add(late);
        live.ingest(late, D.plusDays(1).atTime(9, 0).toInstant(ZoneOffset.UTC), false);
        live.flush();
        meta.markLate(D);
        // The marks are ordered by their cells' server timestamps, and a late mark in the same
        // millisecond as the next close counts as after it (the day is passed again, the safe
        // side). An aggregator's mark comes well before a close; here it would come within a
        // millisecond of it, and the re-run below would then write generation 6: let one pass.
        Thread.sleep(2);
        assertIndexPath(bulk, reconcile(reconciler));
        assertEquals(5, generation(hbase, layout, campaign));
        assertLists(hbase, layout, campaign, 5, imps, clicks);
        assertEquals(5, monthGeneration(hbase, layout, campaign));
        assertEquals(0, rows(hbase, layout, RankedIndexCodec.generationsRange(campaign, D, 0, 4)), "generations before 4 survived");

        // and the next re-run, with nothing new, keeps it
        reconciler.reconcile(D, false, null);
        assertEquals(5, generation(hbase, layout, campaign));
        assertLists(hbase, layout, campaign, 5, imps, clicks);
    }

    /** Reconciles D and returns what the reconciler printed. */
    private static String reconcile(Reconciler reconciler) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        reconciler.reconcile(D, false, new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The reduce tasks wrote the index entries, and bulk-loaded them exactly when {@code bulk}. */
    private static void assertIndexPath(boolean bulk, String output) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("written by the reduce tasks \\((\\d+) entries(, (\\d+) of them bulk-loaded)?\\)")
                .matcher(output);
        assertTrue(m.find(), output);
        assertTrue(Long.parseLong(m.group(1)) > 0, output);
        if (bulk) {
            assertEquals(m.group(1), m.group(3), "every entry bulk-loaded: " + output);
        } else {
            assertEquals(null, m.group(2), "no entry bulk-loaded: " + output);
        }
    }

    private Ev impression(String id) {
        Instant ts = D.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(rnd.nextInt(23 * 3600));
        String adv = "a" + rnd.nextInt(3);
        return new Ev("impression", id, ts, Map.of("advertiser", adv, "campaign", "c" + (int) Math.sqrt(rnd.nextInt(64)),
                "creative", "cr1", "publisher", "p1", "zone", "z1", "country", "US", "deviceType", "mobile"),
                100, 0, null);
    }

    /** The every-series list and each tenant's list of impressions and clicks equal the recount. */
    private void assertLists(MiniHBase hbase, TableLayout layout, Rollup campaign, long gen, List<Ev> imps, List<Ev> clicks)
            throws IOException {
        Map<String, Ev> byId = new HashMap<>();
        imps.forEach(e -> byId.put(e.id(), e));
        Map<List<String>, Long> impressions = new HashMap<>();
        imps.forEach(e -> impressions.merge(List.of(e.dims().get("advertiser"), e.dims().get("campaign")), 1L, Long::sum));
        Map<List<String>, Long> clickCounts = new HashMap<>();
        clicks.forEach(c -> {
            Ev imp = byId.get(c.impressionId());
            clickCounts.merge(List.of(imp.dims().get("advertiser"), imp.dims().get("campaign")), 1L, Long::sum);
        });
        for (String tenant : new String[] {null, "a0", "a1", "a2"}) {
            assertEquals(expected(impressions, tenant), list(hbase, layout, campaign, gen, "impressions", tenant), "impressions " + tenant);
            assertEquals(expected(clickCounts, tenant), list(hbase, layout, campaign, gen, "clicks", tenant), "clicks " + tenant);
            // the month's lists: every other day of it is empty, so the month equals the day
            assertEquals(expected(impressions, tenant), monthList(hbase, layout, campaign, "impressions", tenant), "month " + tenant);
            assertEquals(expected(clickCounts, tenant), monthList(hbase, layout, campaign, "clicks", tenant), "month clicks " + tenant);
        }
    }

    private static List<String> expected(Map<List<String>, Long> counts, String tenant) {
        return counts.entrySet().stream().filter(e -> tenant == null || e.getKey().get(0).equals(tenant))
                .sorted(Comparator.<Map.Entry<List<String>, Long>>comparingLong(Map.Entry::getValue).reversed()
                        .thenComparing(e -> e.getKey().get(0)).thenComparing(e -> e.getKey().get(1)))
                .map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    private static List<String> list(MiniHBase hbase, TableLayout layout, Rollup r, long gen, String metric, String tenant)
            throws IOException {
        KeyRange range = RankedIndexCodec.listRange(r, D, gen, metric, tenant);
        List<String> out = new ArrayList<>();
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable());
             ResultScanner rs = t.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop()))) {
            for (Result row : rs) {
                RankedIndexCodec.Entry e = RankedIndexCodec.parseEntry(r, range.start(), row.getRow());
                out.add(e.values() + "=" + e.value());
            }
        }
        return out;
    }

    private static List<String> monthList(MiniHBase hbase, TableLayout layout, Rollup r, String metric, String tenant)
            throws IOException {
        YearMonth month = YearMonth.from(D);
        KeyRange range = RankedIndexCodec.monthListRange(r, month, monthGeneration(hbase, layout, r), metric, tenant);
        List<String> out = new ArrayList<>();
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable());
             ResultScanner rs = t.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop()))) {
            for (Result row : rs) {
                RankedIndexCodec.Entry e = RankedIndexCodec.parseEntry(r, range.start(), row.getRow());
                // the series row holds the same total for random access
                Result series = t.get(new Get(RankedIndexCodec.monthSeriesKey(r, month, monthGeneration(hbase, layout, r), e.values())));
                assertEquals(e.value(), Bytes.toLong(series.getValue(TableLayout.RANKED_FAMILY, Bytes.toBytes(metric))));
                out.add(e.values() + "=" + e.value());
            }
        }
        return out;
    }

    private static long monthGeneration(MiniHBase hbase, TableLayout layout, Rollup r) throws IOException {
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable())) {
            byte[] g = t.get(new Get(RankedIndexCodec.monthPointerKey(r, YearMonth.from(D)))).getValue(TableLayout.RANKED_FAMILY,
                    Bytes.toBytes("g"));
            return g == null ? 0 : Bytes.toLong(g);
        }
    }

    private static long generation(MiniHBase hbase, TableLayout layout, Rollup r) throws IOException {
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable())) {
            return Bytes.toLong(t.get(new Get(RankedIndexCodec.pointerKey(r, D))).getValue(TableLayout.RANKED_FAMILY, Bytes.toBytes("g")));
        }
    }

    private static long rows(MiniHBase hbase, TableLayout layout, KeyRange range) throws IOException {
        long n = 0;
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable());
             ResultScanner rs = t.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop()))) {
            for (Result ignored : rs) {
                n++;
            }
        }
        return n;
    }
}
