package io.adreport.report.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.reconcile.topn.RankedIndexWriter;
import io.adreport.report.CounterLoader;
import io.adreport.report.KnownEvent;
import io.adreport.report.ReportCheck;
import io.adreport.report.ReportConfig;
import io.adreport.report.ReportFixture;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import io.javalin.Javalin;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Random top-N reports over a ranked index equal a brute-force recount of the events
 * ({@link io.adreport.report.Recount}, the test's own counting, sharing no code with the index
 * or its merge). 66 days of skewed random traffic (small value ranges, so ties are common),
 * 2026-09-01..11-05: September and October wholly reconciled and indexed by
 * {@link RankedIndexWriter}, so each also has month lists; November partly live, one day
 * closing; one October day re-reconciled twice after late events (its month rewritten each
 * time). Each query: a random rollup, stored metric, N, range of 1–62 days (a third of them
 * starting near a month's first day, so whole months plus loose days are common) in UTC,
 * Asia/Kolkata, Asia/Kathmandu or America/New_York, with or without a tenant filter, through
 * real HTTP with an analyst key. Ties come out in groupBy value order, like every other report.
 *
 * <p>{@code -Dtopn.seeds=N} runs N seeds of queries instead of the default few.
 */
@ExtendWith(HBaseExtension.class)
class RankedTopNPropertyTest {
    private static final LocalDate FIRST = LocalDate.parse("2026-09-01");
    private static final int DAYS = 66;
    private static final List<String> ZONES = List.of("UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/New_York");
    private static final List<String> SORT_METRICS = List.of("impressions", "clicks", "spendMicros", "conversions");

    private static Cube cube;
    private static TableLayout layout;
    private static MiniHBase hbase;
    private static DayStatusStore meta;
    private static RankedIndexWriter writer;
    private static CounterLoader loader;
    private static Javalin app;
    private static Metrics metrics;
    private static String analystKey;
    private static final List<KnownEvent> events = new ArrayList<>();
    private static final Set<LocalDate> reconciled = new HashSet<>();
    private static LocalDate reRun;
    private static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start(MiniHBase h) throws IOException {
        hbase = h;
        cube = ReportFixture.smallCube();
        layout = new TableLayout(cube, hbase.freshNamespace("topn"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        MutableClock clock = new MutableClock(FIRST.plusDays(DAYS).atTime(12, 0).toInstant(ZoneOffset.UTC));
        meta = new DayStatusStore(hbase.connection(), layout, clock);
        writer = new RankedIndexWriter(hbase.connection(), layout);
        loader = new CounterLoader(hbase.connection(), cube, layout);

        long t0 = System.nanoTime();
        Random rnd = new Random(20261130);
        for (int d = 0; d < DAYS; d++) {
            events.addAll(traffic(rnd, FIRST.plusDays(d), 30 + rnd.nextInt(50)));
        }
        loader.load(events);
        long t1 = System.nanoTime();
        LocalDate closing = FIRST.plusDays(63);
        for (int d = 0; d < DAYS - 2; d++) {
            LocalDate day = FIRST.plusDays(d);
            if ((day.getMonthValue() == 11 && rnd.nextInt(3) == 0) || day.equals(closing)) {
                continue; // live: counted but not reconciled
            }
            reconcile(day);
        }
        meta.markClosing(closing);
        // late events for a reconciled day, reconciled again, twice: the index of generation 1 must not be read
        reRun = FIRST.plusDays(44);
        for (int i = 0; i < 2; i++) {
            List<KnownEvent> late = traffic(rnd, reRun, 40);
            loader.load(late);
            events.addAll(late);
            reconcile(reRun);
        }

        System.err.printf("ranked top-N fixture: %d events, counters %.1f s, reconcile marks and index %.1f s%n", events.size(),
                (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
        metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.defaults(), metrics, clock);
        analystKey = deps.keys().create("analyst");
        app = ReportApi.create(deps).start("127.0.0.1", 0);
    }

    /** What the nightly job does after its recount, for counters that are already exact. */
    private static void reconcile(LocalDate day) throws IOException {
        meta.markClosing(day);
        writer.write(day);
        meta.markReconciled(day, "{}");
        writer.writeMonthIfComplete(day, meta);
        reconciled.add(day);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.stop();
        }
    }

    // Every query asks for impressions too: the engine lists a group when one of the requested
    // columns has a cell, the recount when the group has any event; every group has impressions.

    /** Skewed traffic of one day: a few heavy campaigns, a long tail, clicks and conversions. */
    static List<KnownEvent> traffic(Random rnd, LocalDate day, int impressions) {
        List<KnownEvent> out = new ArrayList<>();
        Instant start = day.atStartOfDay().toInstant(ZoneOffset.UTC);
        for (int i = 0; i < impressions; i++) {
            String adv = "adv" + skewed(rnd, 4);
            String pub = "pub" + skewed(rnd, 3);
            Map<String, String> dims = Map.of("advertiser", adv, "campaign", adv + "-c" + skewed(rnd, 12),
                    "creative", "cr" + skewed(rnd, 3), "publisher", pub, "zone", pub + "-z" + skewed(rnd, 4),
                    "country", List.of("US", "DE", "IN", "NP", "FR").get(skewed(rnd, 5) - 1),
                    "deviceType", rnd.nextBoolean() ? "mobile" : "desktop");
            Instant ts = start.plusSeconds(rnd.nextInt(86_400));
            out.add(KnownEvent.impression(ts, dims, 1 + rnd.nextInt(3)));
            if (rnd.nextInt(4) == 0) {
                out.add(KnownEvent.click(ts, dims));
            }
            if (rnd.nextInt(12) == 0) {
                out.add(new KnownEvent("conversion", ts, dims, 0, 0));
            }
        }
        return out;
    }

    /** 1..n, 1 most likely (roughly Zipf). */
    private static int skewed(Random rnd, int n) {
        double u = rnd.nextDouble();
        return Math.min(n, 1 + (int) Math.floor(Math.pow(n + 1, u) - 1));
    }

    @Test
    void random_top_n_reports_equal_the_recount_and_most_read_the_index() throws Exception {
        int seeds = Integer.getInteger("topn.seeds", 3);
        List<Rollup> rollups = cube.rollups().stream().filter(RankedIndexWriter::indexes).toList();
        int checked = 0;
        for (int seed = 1; seed <= seeds; seed++) {
            Random rnd = new Random(seed);
            for (int i = 0; i < 25; i++) {
                Rollup r = rollups.get(rnd.nextInt(rollups.size()));
                LocalDate from = rnd.nextInt(3) == 0
                        ? (rnd.nextBoolean() ? FIRST : FIRST.plusMonths(1)).plusDays(rnd.nextInt(4) - (rnd.nextBoolean() ? 0 : 2))
                        : FIRST.plusDays(rnd.nextInt(DAYS - 1));
                from = from.isBefore(FIRST) ? FIRST : from;
                int len = 1 + rnd.nextInt(Math.min(62, (int) (FIRST.plusDays(DAYS).toEpochDay() - from.toEpochDay())));
                String zone = ZONES.get(rnd.nextInt(ZONES.size()));
                String metric = SORT_METRICS.get(rnd.nextInt(SORT_METRICS.size()));
                ReportCheck c = ReportCheck.of(r.name(), from.toString(), from.plusDays(len).toString()).tz(zone)
                        .granularity("all").metrics(metric.equals("impressions") ? new String[] {metric, "ctr"} : new String[] {metric, "impressions", "ctr"}).orderBy("-" + metric)
                        .limit(1 + rnd.nextInt(rnd.nextBoolean() ? 5 : 25));
                if (r.hasTenant() && rnd.nextBoolean()) {
                    c.filter(r.tenant(), r.tenant().equals("advertiser") ? "adv" + (1 + rnd.nextInt(4)) : "pub" + (1 + rnd.nextInt(3)));
                    List<String> rest = r.dimensions().subList(1, r.dimensions().size());
                    c.groupBy((rest.isEmpty() || rnd.nextBoolean() ? r.dimensions() : rest).toArray(String[]::new));
                } else {
                    c.groupBy(r.dimensions().toArray(String[]::new));
                }
                JsonNode body = get(c.path(null));
                c.assertMatches(body, c.expected(events, Map.of()));
                assertDays(body, from, from.plusDays(len + 1));
                checked++;
            }
        }
        long ranked = plans().getOrDefault("ranked_index", 0L);
        System.err.printf("ranked top-N: %d reports checked, plans %s, fallbacks %s, %s%n", checked, plans(), fallbacks(), topnCounters());
        assertTrue(ranked >= checked / 3, "most reports should be answered from the index: " + plans() + " " + fallbacks());
        assertTrue(topnCounters().getOrDefault("month_lists", 0L) > 0, "some reports should merge a month list: " + topnCounters());
    }

    @Test
    void a_report_over_only_the_re_reconciled_day_reads_its_newest_index_and_no_old_generation_survives() throws Exception {
        for (String metric : SORT_METRICS) {
            ReportCheck c = ReportCheck.of("creative", reRun.toString(), reRun.plusDays(1).toString()).granularity("all")
                    .metrics(metric).groupBy("advertiser", "campaign", "creative").orderBy("-" + metric).limit(3);
            long before = plans().getOrDefault("ranked_index", 0L);
            c.assertMatches(get(c.path(null)), c.expected(events, Map.of()));
            assertEquals(before + 1, plans().getOrDefault("ranked_index", 0L), metric + ": " + fallbacks());
        }
        // generation 3 is published, 2 is kept for readers that started before it, 1 is deleted
        Rollup creative = cube.rollup("creative").orElseThrow();
        KeyRange old = RankedIndexCodec.generationsRange(creative, reRun, 0, 2);
        KeyRange kept = RankedIndexCodec.generationsRange(creative, reRun, 2, 4);
        assertEquals(0, rows(old));
        assertTrue(rows(kept) > 0);
    }

    @Test
    void a_whole_reconciled_month_is_one_list_read_without_random_access_and_its_newest_generation_is_read() throws Exception {
        LocalDate oct = FIRST.plusMonths(1);
        for (String metric : SORT_METRICS) {
            for (String adv : new String[] {null, "adv2"}) {
                ReportCheck c = ReportCheck.of("campaign", oct.toString(), oct.plusMonths(1).toString()).granularity("all")
                        .metrics(metric).groupBy("advertiser", "campaign").orderBy("-" + metric).limit(4);
                if (adv != null) {
                    c.filter("advertiser", adv);
                }
                Map<String, Long> before = topnCounters();
                JsonNode body = get(c.path(null));
                c.assertMatches(body, c.expected(events, Map.of()));
                assertDays(body, oct, oct.plusMonths(1));
                Map<String, Long> after = topnCounters();
                assertEquals(before.getOrDefault("month_lists", 0L) + 1, after.get("month_lists"), metric + " " + adv);
                assertEquals(before.getOrDefault("random_gets", 0L), after.getOrDefault("random_gets", 0L), metric + " " + adv);
            }
        }
        // October was completed (generation 1), then its day reRun was reconciled twice (2, 3): 1 is gone, 2 kept
        Rollup campaign = cube.rollup("campaign").orElseThrow();
        java.time.YearMonth month = java.time.YearMonth.from(oct);
        assertEquals(0, RankedIndexCodec.monthGenerationsRanges(campaign, month, 0, 2).stream().mapToLong(RankedTopNPropertyTest::rows).sum());
        assertTrue(RankedIndexCodec.monthGenerationsRanges(campaign, month, 2, 4).stream().allMatch(r -> rows(r) > 0));
    }

    @Test
    void a_month_with_a_day_reconciled_again_is_not_read_until_it_is_rewritten_and_stays_exact() throws Exception {
        LocalDate day = FIRST.plusDays(9);
        ReportCheck c = ReportCheck.of("creative", FIRST.minusDays(1).toString(), FIRST.plusMonths(1).plusDays(3).toString())
                .granularity("all").metrics("clicks", "impressions").groupBy("advertiser", "campaign", "creative")
                .orderBy("-clicks").limit(7);
        List<KnownEvent> late = traffic(new Random(909), day, 60);
        loader.load(late);
        events.addAll(late);
        meta.markClosing(day); // a re-run has started: the day is read from its counters
        Map<String, Long> before = topnCounters();
        c.assertMatches(get(c.path(null)), c.expected(events, Map.of()));
        writer.write(day);
        meta.markReconciled(day, "{}"); // the day's new list is published, its month not yet rewritten
        c.assertMatches(get(c.path(null)), c.expected(events, Map.of()));
        assertEquals(before.getOrDefault("month_lists", 0L), topnCounters().getOrDefault("month_lists", 0L), "a stale month was read");
        writer.writeMonthIfComplete(day, meta);
        JsonNode body = get(c.path(null));
        c.assertMatches(body, c.expected(events, Map.of()));
        assertDays(body, FIRST, FIRST.plusMonths(1).plusDays(4));
        assertEquals(before.getOrDefault("month_lists", 0L) + 1, topnCounters().get("month_lists"));
    }

    @Test
    void derived_orders_ascending_orders_and_inner_filters_fall_back_and_stay_exact() throws Exception {
        String from = FIRST.plusDays(3).toString();
        String to = FIRST.plusDays(33).toString();
        List<ReportCheck> checks = List.of(
                ReportCheck.of("campaign", from, to).granularity("all").metrics("clicks", "ctr").groupBy("advertiser", "campaign")
                        .orderBy("-ctr").limit(5),
                ReportCheck.of("campaign", from, to).granularity("all").metrics("clicks", "impressions")
                        .groupBy("advertiser", "campaign").orderBy("clicks").limit(5),
                ReportCheck.of("creative", from, to).granularity("all").metrics("clicks", "impressions").filter("creative", "cr1")
                        .groupBy("advertiser", "campaign").orderBy("-clicks").limit(5));
        for (ReportCheck c : checks) {
            JsonNode body = get(c.path(null));
            c.assertMatches(body, c.expected(events, Map.of()));
        }
        Map<String, Long> f = fallbacks();
        assertTrue(f.getOrDefault("derived_metric", 0L) >= 1 && f.getOrDefault("ascending", 0L) >= 1
                && f.getOrDefault("filter", 0L) >= 1, f.toString());
    }

    private static void assertDays(JsonNode body, LocalDate from, LocalDate toExclusive) {
        JsonNode days = body.get("days");
        days.fields().forEachRemaining(e -> {
            LocalDate d = LocalDate.parse(e.getKey());
            assertEquals(reconciled.contains(d) ? "reconciled" : "live", e.getValue().get("status").asText(), "day " + d);
        });
        assertTrue(days.size() >= 1 && LocalDate.parse(days.fieldNames().next()).isBefore(toExclusive));
    }

    private static long rows(KeyRange range) {
        long n = 0;
        try (Table t = hbase.connection().getTable(layout.rankedIndexTable());
             ResultScanner rs = t.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop()))) {
            for (Result ignored : rs) {
                n++;
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return n;
    }

    private static JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path))
                .header("Authorization", "Bearer " + analystKey).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + " -> " + r.body());
        return new ObjectMapper().readTree(r.body());
    }

    private static Map<String, Long> plans() {
        return scrape("adreport_report_plan_total\\{plan=\"([a-z_]+)\"\\} ([0-9.]+)");
    }

    private static Map<String, Long> topnCounters() {
        return scrape("adreport_report_topn_([a-z_]+)_total ([0-9.]+)");
    }

    private static Map<String, Long> fallbacks() {
        return scrape("adreport_report_topn_fallback_total\\{reason=\"([a-z_]+)\"\\} ([0-9.]+)");
    }

    private static Map<String, Long> scrape(String regex) {
        Map<String, Long> out = new TreeMap<>();
        Matcher m = Pattern.compile(regex).matcher(metrics.scrape());
        while (m.find()) {
            out.put(m.group(1), (long) Double.parseDouble(m.group(2)));
        }
        return new LinkedHashMap<>(out);
    }
}
