package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.reconcile.DayCloseProtocol;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.RawKey;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The product's invariants end to end: the real aggregator and the real report API on port 0,
 * spoken to only over HTTP, the real reconcile job in this JVM, one namespace of the shared mini
 * cluster.
 *
 * <p>Time: the injected clock runs at real speed but reads 12:00 UTC of the real day at start,
 * so "yesterday" is a whole finished UTC day and "today" has twelve hours of traffic behind it.
 *
 * <p>The oracle ({@link Recount}) is plain code of this class: it dedups the events it sent by
 * (type, id, UTC day), joins clicks and conversions to impressions by id, and adds up the
 * metrics of the ads cube per rollup, as SPEC.md states them. It shares nothing with the
 * product's counting code. It knows which join events the aggregator could attribute (their
 * impression was stored by an earlier request) and which it could not (posted before their
 * impression): live, those count as unattributed; after the nightly job, every click or
 * conversion whose impression exists is attributed.
 *
 * <p>The three tests share the data, in order: {@link #live_counters_equal_the_recount_after_one_flush}
 * reads what {@link #ingest} sent; {@link #after_faults_the_nightly_job_makes_yesterday_exact_and_leaves_today_alone}
 * damages yesterday and reconciles it; {@link #a_tenant_key_reads_only_its_own_rows} checks every
 * tenant answer against the analyst's on whatever the data then is.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProductInvariantsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The stored metrics of the ads cube (SPEC.md), the ones the recount adds up. */
    private static final List<String> METRICS = List.of("impressions", "clicks", "conversions", "spendMicros",
            "conversionValueMicros", "unattributedClicks", "unattributedConversions");
    /** The rollups of the ads cube and their dimensions, tenant first. */
    private static final Map<String, List<String>> ROLLUPS = rollups();
    private static final List<String> GRANULARITIES = List.of("hour", "day");

    private static final List<String> ADVERTISERS = List.of("adv-1", "adv-1", "adv-1", "adv-2", "adv-2", "adv-3", "adv-4");
    private static final List<String> PUBLISHERS = List.of("pub-1", "pub-1", "pub-2", "pub-3");
    private static final List<String> COUNTRIES = List.of("US", "US", "DE", "FR", "IN", "BR");
    private static final List<String> DEVICE_TYPES = List.of("mobile", "mobile", "desktop", "tablet");

    private final Random rnd = new Random(20_261_129L);
    private final Recount recount = new Recount();
    private int seq;

    private MiniHBase hbase;
    private Cube cube;
    private TableLayout layout;
    private Clock clock;
    private LocalDate today;
    private LocalDate yesterday;
    private Instant now;
    private FaultyCounters tables;
    private Aggregator aggregator;
    private ReportApi.Deps deps;
    private Javalin api;
    private String analystKey;
    /** Impressions stored in phase one, by day: what later clicks refer to. */
    private final Map<LocalDate, List<Beacon>> impressions = new HashMap<>();
    /** Every valid line sent in phase one: what replays re-send. */
    private final List<Beacon> sentLines = new ArrayList<>();

    @BeforeAll
    void start(MiniHBase cluster) throws Exception {
        hbase = cluster;
        Instant real = Instant.now();
        today = LocalDate.ofInstant(real, ZoneOffset.UTC);
        yesterday = today.minusDays(1);
        clock = Clock.offset(Clock.systemUTC(), Duration.between(real, today.atTime(12, 0).toInstant(ZoneOffset.UTC)));
        now = clock.instant();

        cube = smallCube();
        assertEquals(ROLLUPS.keySet(), cube.rollups().stream().map(Rollup::name).collect(Collectors.toSet()),
                "the recount knows every rollup of the cube");
        for (Rollup r : cube.rollups()) {
            assertEquals(ROLLUPS.get(r.name()), r.dimensions(), r.name());
        }
        long t0 = System.nanoTime();
        layout = new TableLayout(cube, hbase.freshNamespace("e2e"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        System.err.printf("e2e: tables %.1f s%n", (System.nanoTime() - t0) / 1e9);

        EventParser parser = new EventParser(cube, clock, Duration.ofDays(7),
                new DeviceHasher("e2e-device-secret-0123456789".getBytes(StandardCharsets.UTF_8)));
        tables = new FaultyCounters(TableSource.of(hbase.connection(), Duration.ofSeconds(30)), layout);
        // Flushes only when the test says (flushNow): the interval is longer than the test.
        aggregator = Aggregator.start(hbase.connection(), layout, parser, AggregatorConfig.of(Map.of(
                "ingest.port", "0", "aggregator.id", "e2e-agg", "flush.interval.ms", "60000",
                "dayclose.poll.ms", "100", "heartbeat.interval.ms", "200",
                // the close acknowledgement waits one counter-call timeout after an uncertain flush call;
                // this test's nightly job waits ~20 s for it, so counter calls here give up after 15 s
                "flush.timeout.ms", "15000")), clock, tables, new Metrics());

        deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(),
                ReportConfig.of(Map.of()), new Metrics(), clock); // the port is chosen by start(0)
        analystKey = deps.keys().create("analyst");
        api = ReportApi.create(deps).start(0);

        long t1 = System.nanoTime();
        ingest();
        System.err.printf("e2e: ingest of %d events %.1f s%n", recount.entries.size(), (System.nanoTime() - t1) / 1e9);
    }

    @AfterAll
    void stop() {
        if (api != null) {
            api.stop();
        }
        if (aggregator != null) {
            aggregator.close();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Phase one: traffic for yesterday and today, no faults.
    // ---------------------------------------------------------------------------------------

    /**
     * Sends a few thousand events in five rounds: clicks and conversions posted before their
     * impression (and some whose impression never comes); impressions; clicks and conversions
     * of stored impressions; a replay round. Invalid events are mixed into the batches and 20%
     * of the valid lines are sent again later, in the same request or a later one.
     */
    private void ingest() {
        List<Beacon> clicksAndConversions = new ArrayList<>();
        List<Beacon> early = new ArrayList<>();
        List<Beacon> imps = new ArrayList<>();
        for (LocalDate day : List.of(yesterday, today)) {
            Instant from = day.atStartOfDay(ZoneOffset.UTC).toInstant();
            Instant to = day.equals(today) ? now.minus(Duration.ofMinutes(2)) : from.plus(Duration.ofDays(1));
            int n = day.equals(today) ? 900 : 1400;
            List<Beacon> ofDay = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ofDay.add(impression(between(from, to)));
            }
            imps.addAll(ofDay);
            impressions.put(day, ofDay);
            for (int i = 0; i < 4; i++) { // their impression never arrives
                early.add(click(between(from, to), "imp-never-" + day + "-" + i));
            }
            early.add(conversion(between(from, to), "imp-never-" + day + "-c"));
        }
        for (Beacon imp : imps) {
            if (rnd.nextInt(100) < 10) {
                Instant ts = imp.ts().plusSeconds(1 + rnd.nextInt(900));
                if (ts.isAfter(now.minusSeconds(60))) {
                    continue;
                }
                Beacon c = click(ts, imp.id());
                // One click in ten reaches the aggregator before its impression.
                (rnd.nextInt(10) == 0 ? early : clicksAndConversions).add(c);
                if (rnd.nextInt(100) < 30) {
                    Instant cts = ts.plusSeconds(1 + rnd.nextInt(1800));
                    if (cts.isBefore(now.minusSeconds(60))) {
                        clicksAndConversions.add(conversion(cts, imp.id()));
                    }
                }
            }
        }
        Collections.shuffle(imps, rnd);
        Collections.shuffle(clicksAndConversions, rnd);

        List<List<Object>> batches = new ArrayList<>();
        batches.add(new ArrayList<>(early));
        chunk(imps, 200, batches);
        chunk(clicksAndConversions, 150, batches);
        batches.add(new ArrayList<>());
        // Invalid events, into the impression and click rounds.
        List<Invalid> invalid = invalidEvents();
        for (Invalid bad : invalid) {
            List<Object> b = batches.get(1 + rnd.nextInt(batches.size() - 2));
            b.add(rnd.nextInt(b.size() + 1), bad);
        }
        // Replays of 20% of the valid lines: later in the same request or in any later request.
        List<int[]> originals = new ArrayList<>();
        for (int b = 0; b < batches.size(); b++) {
            for (int i = 0; i < batches.get(b).size(); i++) {
                if (batches.get(b).get(i) instanceof Beacon && rnd.nextInt(100) < 20) {
                    originals.add(new int[] {b, i});
                }
            }
        }
        Map<Integer, List<Beacon>> copies = new TreeMap<>();
        Map<Integer, List<Beacon>> sameBatchCopies = new TreeMap<>();
        for (int[] o : originals) {
            Beacon b = (Beacon) batches.get(o[0]).get(o[1]);
            int target = o[0] + rnd.nextInt(batches.size() - o[0]);
            if (target == o[0] && o[0] == 0) {
                target = batches.size() - 1; // early clicks are replayed in the replay round
            }
            (target == o[0] ? sameBatchCopies : copies).computeIfAbsent(target, k -> new ArrayList<>()).add(b);
        }
        for (var e : sameBatchCopies.entrySet()) {
            List<Object> b = batches.get(e.getKey());
            for (Beacon copy : e.getValue()) {
                int at = b.indexOf(copy);
                b.add(at + 1 + rnd.nextInt(b.size() - at), copy);
            }
        }
        for (var e : copies.entrySet()) {
            List<Object> b = batches.get(e.getKey());
            for (Beacon copy : e.getValue()) {
                b.add(rnd.nextInt(b.size() + 1), copy);
            }
        }

        int rejected = 0;
        for (List<Object> batch : batches) {
            if (!batch.isEmpty()) {
                rejected += post(batch, false).rejected;
            }
            batch.stream().filter(Beacon.class::isInstance).map(Beacon.class::cast).forEach(sentLines::add);
        }
        assertEquals(invalid.size(), rejected, "every invalid event is rejected");
        // Malformed JSON rejects the whole request and stores none of it; the service goes on.
        HttpResponse<String> malformed = send(HttpRequest.newBuilder(URI.create("http://localhost:" + aggregator.port() + "/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofString(impression(now.minusSeconds(30)).json() + "\n{\"type\":\"impression\",\"id\":")).build());
        assertEquals(400, malformed.statusCode(), malformed.body());
        assertTrue(readTree(malformed.body()).get("error").asText().startsWith("line 2: malformed JSON"), malformed.body());
        aggregator.flushNow();
    }

    private static void chunk(List<Beacon> events, int size, List<List<Object>> into) {
        for (int i = 0; i < events.size(); i += size) {
            into.add(new ArrayList<>(events.subList(i, Math.min(events.size(), i + size))));
        }
    }

    /** One of each validation rule, several times, with ids that would show if anything were stored. */
    private List<Invalid> invalidEvents() {
        List<Invalid> out = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            String ts = between(yesterday.atStartOfDay(ZoneOffset.UTC).toInstant(), now.minusSeconds(600)).toString();
            String id = "bad-" + k + "-";
            String dims = ",\"advertiser\":\"adv-1\",\"campaign\":\"c1\",\"publisher\":\"pub-1\",\"country\":\"US\"";
            out.add(new Invalid("{\"type\":\"view\",\"id\":\"" + id + "a\",\"ts\":\"" + ts + "\"" + dims + "}",
                    "type: must be one of impression, click, conversion"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + id + "b\",\"ts\":\"" + ts + "\"" + dims + ",\"costMicros\":-3}",
                    "costMicros: must be >= 0"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + id + "c\",\"ts\":\"" + ts
                    + "\",\"advertiser\":\"adv-1\",\"country\":\"U1\"}", "country: must match [A-Z]{2}"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + id + "d\",\"ts\":\"" + now.plusSeconds(600) + "\"" + dims + "}",
                    "ts: must not be more than 5 minutes in the future"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + id + "e\",\"ts\":"
                    + now.minus(Duration.ofDays(8)).toEpochMilli() + dims + "}",
                    "ts: must not be older than the accept window (7 days)"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + id + "f\",\"ts\":\"" + ts
                    + "\",\"advertiser\":\"" + "a".repeat(65) + "\"}", "advertiser: must be at most 64 characters"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + id + "g\",\"ts\":\"" + ts
                    + "\",\"advertiser\":\"adv-1\",\"campaign\":\"c\\u0007\"}", "campaign: must not contain control characters"));
            out.add(new Invalid("{\"type\":\"click\",\"id\":\"" + id + "h\",\"ts\":\"" + ts + "\"}", "impressionId: is required"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + id + "i\"" + dims + "}", "ts: is required"));
            out.add(new Invalid("{\"type\":\"impression\",\"ts\":\"" + ts + "\"" + dims + "}", "id: is required"));
            out.add(new Invalid("{\"type\":\"impression\",\"id\":\"" + "x".repeat(129) + "\",\"ts\":\"" + ts + "\"" + dims + "}",
                    "id: must be at most 128 characters"));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------
    // Invariant 1
    // ---------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void live_counters_equal_the_recount_after_one_flush() throws Exception {
        assertEquals(recount.identities(e -> true), rawIdentities(),
                "the raw table holds every valid event once and nothing of an invalid one");
        for (LocalDate day : List.of(yesterday, today)) {
            Map<String, Map<Row, Map<String, Long>>> expected = recount.live(day);
            for (String rollup : ROLLUPS.keySet()) {
                for (String g : GRANULARITIES) {
                    assertRows(expected.get(rollup + "/" + g), report(analystKey, rollup, day, g),
                            "live " + rollup + " by " + g + " on " + day);
                }
            }
            // Clicks posted before their impression are counted unattributed, only in the network rollup.
            long unattributedClicks = recount.entries.values().stream()
                    .filter(e -> e.beacon.type().equals("click") && e.beacon.day().equals(day) && !e.attributedLive).count();
            assertTrue(unattributedClicks >= 5, "the scenario has early clicks on " + day);
            Map<String, Long> network = total(analystKey, "network", day);
            assertEquals(unattributedClicks, network.getOrDefault("unattributedClicks", 0L), "unattributed clicks on " + day);
            long allClicks = recount.entries.values().stream()
                    .filter(e -> e.beacon.type().equals("click") && e.beacon.day().equals(day)).count();
            assertEquals(allClicks, network.get("clicks"), "the network counts every click");
            assertEquals(allClicks - unattributedClicks, total(analystKey, "advertiser", day).get("clicks"),
                    "the advertiser rollups count only attributed clicks");
            assertEquals("live", days(analystKey, "network", day).get(day.toString()).get("status").asText());
        }
    }

    /**
     * Reports add the aggregator's live counts (LiveCounts): events acknowledged a moment ago are
     * in every report at once, although this aggregator flushes only when the test says; and a
     * flush, which moves them into the stored cells, counts none of them twice.
     */
    @Test
    @Order(2)
    void an_acknowledged_event_is_in_the_reports_before_any_flush_and_once_after_it() throws Exception {
        Map<String, Map<Row, Map<String, Long>>> expected = null;
        Map<String, Map<Row, Map<String, Long>>> seen = null;
        // The aggregator's own timer flushes every 60 s; a round it overlapped proves nothing and is repeated.
        for (int round = 0; round < 3 && seen == null; round++) {
            long flushesBefore = aggregator.stats().flushSeconds.count();
            Instant from = now.minus(Duration.ofHours(2));
            List<Object> fresh = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                fresh.add(impression(between(from, now.minusSeconds(30))));
            }
            for (int i = 0; i < 25; i++) { // clicks of impressions stored (and flushed) earlier: attributed
                Beacon imp = pick(impressions.get(today));
                fresh.add(click(later(imp.ts(), now.minusSeconds(30)), imp.id()));
            }
            post(fresh, false);
            expected = recount.live(today);
            Map<String, Map<Row, Map<String, Long>>> read = reports(analystKey, today);
            if (aggregator.stats().flushSeconds.count() == flushesBefore) {
                seen = read; // nothing was flushed between the post and the reads
            }
        }
        assertTrue(seen != null, "three rounds each overlapped a flush");
        assertReports(expected, seen, "today's reports right after the acknowledgement, before a flush");
        aggregator.flushNow();
        assertReports(expected, reports(analystKey, today), "today's reports after the flush");
    }

    // ---------------------------------------------------------------------------------------
    // Invariant 2
    // ---------------------------------------------------------------------------------------

    @Test
    @Order(3)
    void after_faults_the_nightly_job_makes_yesterday_exact_and_leaves_today_alone() throws Exception {
        Map<String, Map<Row, Map<String, Long>>> todayBefore = reports(analystKey, today);
        assertReports(recount.live(today), todayBefore, "today's counters before the faults");
        List<Beacon> ofYesterday = impressions.get(yesterday);
        Instant dayStart = yesterday.atStartOfDay(ZoneOffset.UTC).toInstant();
        Instant dayEnd = dayStart.plus(Duration.ofDays(1));

        // 1. Late events whose counter deltas are lost: the flush never reaches the region server.
        long failuresBefore = aggregator.stats().flushFailures.get();
        tables.loseFlushes = true;
        try {
            List<Object> lost = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                lost.add(impression(between(dayStart, dayEnd)));
            }
            for (int i = 0; i < 20; i++) {
                Beacon imp = beforeEvening(ofYesterday);
                lost.add(click(later(imp.ts(), dayEnd), imp.id()));
            }
            post(lost, false);
            aggregator.flushNow();
        } finally {
            tables.loseFlushes = false;
        }
        assertTrue(aggregator.stats().flushFailures.get() > failuresBefore, "the injected flush failure happened");
        assertTrue(aggregator.stats().cellsUnapplied.get() > 0, "deltas were lost");

        // 2. Beacons replayed: every one a duplicate.
        List<Object> replay = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            replay.add(sentLines.get(rnd.nextInt(sentLines.size())));
        }
        Outcome replayed = post(replay, false);
        assertEquals(0, replayed.accepted);
        assertEquals(150, replayed.duplicates);

        // 3. Late and out-of-order events for yesterday, counted live: some clicks come before their impression.
        List<Object> late = new ArrayList<>();
        List<Object> lateImpressions = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            late.add(impression(between(dayStart, dayEnd)));
        }
        for (int i = 0; i < 15; i++) {
            Beacon imp = beforeEvening(ofYesterday);
            late.add(click(later(imp.ts(), dayEnd), imp.id()));
        }
        for (int i = 0; i < 6; i++) {
            Beacon imp = impression(between(dayStart, dayEnd.minusSeconds(3600)));
            lateImpressions.add(imp);
            late.add(click(later(imp.ts(), dayEnd), imp.id()));
            late.add(conversion(later(imp.ts(), dayEnd), imp.id()));
        }
        post(late, false);
        post(lateImpressions, false);
        aggregator.flushNow();

        // 4. Counter cells damaged directly: deleted, bogus increments, a row no event made.
        int damaged = damageCounters(yesterday);
        assertTrue(damaged >= 20, "cells damaged: " + damaged);

        // 5. The nightly job for yesterday. While it waits for the aggregator to stop counting
        //    yesterday, more late events for yesterday arrive (stored; counted live or not).
        AtomicBoolean closingEvents = new AtomicBoolean();
        DayCloseProtocol.Sleeper sleeper = d -> {
            if (closingEvents.compareAndSet(false, true)) {
                List<Object> duringClose = new ArrayList<>();
                List<Object> theirImpressions = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    duringClose.add(impression(between(dayStart, dayEnd)));
                }
                for (int i = 0; i < 10; i++) {
                    Beacon imp = beforeEvening(ofYesterday);
                    duringClose.add(click(later(imp.ts(), dayEnd), imp.id()));
                }
                for (int i = 0; i < 3; i++) {
                    Beacon imp = impression(between(dayStart, dayEnd.minusSeconds(3600)));
                    theirImpressions.add(imp);
                    duringClose.add(click(later(imp.ts(), dayEnd), imp.id()));
                }
                post(duringClose, false);
                post(theirImpressions, false);
            }
            Thread.sleep(Math.max(1, d.toMillis()));
        };
        ReconcileConfig config = ReconcileConfig.of(Map.of("reconcile.splits", "2", "reconcile.grace.ms", "20000",
                "reconcile.poll.ms", "100", "reconcile.tmp.dir", "target/reconcile-tmp"));
        new Reconciler(hbase.configuration(), hbase.connection(), layout, config, clock, sleeper)
                .reconcile(yesterday, false, null);
        aggregator.flushNow();

        // Yesterday is exact: every event once, every click and conversion with a stored impression attributed.
        Map<String, Map<Row, Map<String, Long>>> exact = recount.exact(yesterday);
        for (String rollup : ROLLUPS.keySet()) {
            for (String g : GRANULARITIES) {
                assertRows(exact.get(rollup + "/" + g), report(analystKey, rollup, yesterday, g),
                        "reconciled " + rollup + " by " + g + " on " + yesterday);
            }
        }
        long orphans = recount.entries.values().stream().filter(e -> e.beacon.day().equals(yesterday)
                && e.beacon.impressionId() != null && e.beacon.impressionId().startsWith("imp-never-")).count();
        Map<String, Long> network = total(analystKey, "network", yesterday);
        assertEquals(4, network.getOrDefault("unattributedClicks", 0L), "only clicks whose impression never came stay unattributed");
        assertEquals(1, network.getOrDefault("unattributedConversions", 0L));

        JsonNode days = days(analystKey, "network", yesterday, today.plusDays(1));
        assertEquals("reconciled", days.get(yesterday.toString()).get("status").asText(), days.toString());
        assertEquals("live", days.get(today.toString()).get("status").asText(), days.toString());

        HttpResponse<String> drift = get("/v1/reconcile/" + yesterday, analystKey);
        assertEquals(200, drift.statusCode(), drift.body());
        JsonNode d = JSON.readTree(drift.body());
        assertEquals("reconciled", d.get("status").asText());
        JsonNode totals = d.get("drift").get("totals");
        assertTrue(totals.get("cellsCorrected").asLong() > 0, drift.body());
        assertEquals(0, d.get("drift").get("unacknowledged").size(), "the aggregator acknowledged the close: " + drift.body());
        System.err.printf("e2e: reconcile: %d cells corrected, %s%n", totals.get("cellsCorrected").asLong(),
                closingEvents.get() ? "late events posted while the day was closing" : "the close was acknowledged at once");
        long eventsOfYesterday = recount.identities(e -> e.beacon.day().equals(yesterday) && !e.afterJob).size();
        assertEquals(eventsOfYesterday, totals.get("eventsRead").asLong(), "events read: yesterday's distinct events");
        assertEquals(eventsOfYesterday, totals.get("lateEvents").asLong(), "all of yesterday's events arrived today");
        assertEquals(orphans, totals.get("unattributed").asLong(), "join events whose impression never came");

        // Today was not touched by the job (nor by the faults).
        assertReports(todayBefore, reports(analystKey, today), "today's counters after the job");

        // Yesterday stays closed for live counting: a later beacon is stored, not counted live.
        Outcome after = post(List.<Object>of(impression(between(dayStart, dayEnd))), true);
        assertEquals(1, after.accepted);
        aggregator.flushNow();
        for (String rollup : ROLLUPS.keySet()) {
            assertRows(exact.get(rollup + "/day"), report(analystKey, rollup, yesterday, "day"),
                    "a reconciled day is not incremented live: " + rollup);
        }
    }

    /**
     * Deletes cells and adds bogus increments on yesterday's rows of every counter table, and
     * increments a row that no event made. Returns the number of damaged cells.
     */
    private int damageCounters(LocalDate day) throws IOException {
        RowKeyCodec codec = new RowKeyCodec(cube);
        long epochDay = day.toEpochDay();
        int damaged = 0;
        for (Rollup rollup : cube.rollups()) {
            List<byte[]> rows = new ArrayList<>();
            try (Table t = hbase.connection().getTable(layout.counterTable(rollup)); ResultScanner rs = t.getScanner(new Scan())) {
                for (Result r : rs) {
                    CounterKey k = codec.parseCounterKey(r.getRow());
                    if (Math.floorDiv(k.bucketMinute(), 1440) == epochDay && k.granularity() != Granularity.MINUTES_15) {
                        rows.add(r.getRow());
                    }
                }
            }
            assertFalse(rows.isEmpty(), rollup.name());
            try (Table t = hbase.connection().getTable(layout.counterTable(rollup))) {
                for (int i = 0; i < 2; i++) {
                    byte[] row = rows.get(rnd.nextInt(rows.size()));
                    Delete lost = new Delete(row).addColumns(TableLayout.COUNTER_FAMILY, Bytes.toBytes("impressions"));
                    for (org.apache.hadoop.hbase.Cell c : t.get(new org.apache.hadoop.hbase.client.Get(row)).rawCells()) {
                        byte[] q = org.apache.hadoop.hbase.CellUtil.cloneQualifier(c);
                        if (q.length == "impressions".length() + 9 && Bytes.startsWith(q, Bytes.toBytes("impressions\0"))) {
                            lost.addColumns(TableLayout.COUNTER_FAMILY, q); // the live writers' cells of the metric too
                        }
                    }
                    t.delete(lost);
                    t.increment(new Increment(rows.get(rnd.nextInt(rows.size())))
                            .addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes(i == 0 ? "clicks" : "spendMicros"), 13));
                    damaged += 2;
                }
                if (!rollup.dimensions().isEmpty()) {
                    List<String> ghost = rollup.dimensions().stream().map(dim -> dim.equals("country") ? "ZZ" : "ghost").toList();
                    long bucket = epochDay * 1440 + 600;
                    for (Granularity g : List.of(Granularity.HOUR, Granularity.DAY)) {
                        t.increment(new Increment(codec.counterKey(rollup, g, g.bucketMinute(Instant.ofEpochSecond(bucket * 60)), ghost))
                                .addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes("impressions"), 5));
                        damaged++;
                    }
                }
            }
        }
        return damaged;
    }

    // ---------------------------------------------------------------------------------------
    // Invariant 3
    // ---------------------------------------------------------------------------------------

    @Test
    @Order(4)
    void a_tenant_key_reads_only_its_own_rows() throws Exception {
        String adv1 = deps.keys().create("advertiser:adv-1");
        String pub1 = deps.keys().create("publisher:pub-1");
        LocalDate from = yesterday;
        LocalDate to = today.plusDays(1);
        for (String rollup : List.of("advertiser", "campaign", "creative", "country", "device_type", "publisher", "zone")) {
            List<String> dims = ROLLUPS.get(rollup);
            String tenant = dims.get(0);
            String own = tenant.equals("advertiser") ? "adv-1" : "pub-1";
            String other = tenant.equals("advertiser") ? "adv-2" : "pub-2";
            String key = tenant.equals("advertiser") ? adv1 : pub1;
            String wrongKindKey = tenant.equals("advertiser") ? pub1 : adv1;
            for (String g : GRANULARITIES) {
                String q = "from=" + from + "&to=" + to + "&granularity=" + g + "&metrics=" + String.join(",", METRICS);
                Map<Row, Map<String, Long>> all = rows(get("/v1/reports/" + rollup + "?" + q + "&groupBy=" + String.join(",", dims), analystKey));
                Map<Row, Map<String, Long>> ownRows = new HashMap<>();
                all.forEach((row, metrics) -> {
                    if (row.values().get(0).equals(own)) {
                        ownRows.put(row, metrics);
                    }
                });
                assertFalse(ownRows.isEmpty(), rollup);
                assertTrue(ownRows.size() < all.size(), "other tenants have rows in " + rollup);

                // Own rows, with or without naming itself; totals equal the analyst's for that tenant.
                assertRows(ownRows, rows(get("/v1/reports/" + rollup + "?" + q + "&groupBy=" + String.join(",", dims), key)),
                        rollup + " by " + g + " as " + own);
                assertRows(ownRows, rows(get("/v1/reports/" + rollup + "?" + q + "&groupBy=" + String.join(",", dims)
                        + "&" + tenant + "=" + own, key)), rollup + " by " + g + " filtered to " + own);
                assertRows(rows(get("/v1/reports/" + rollup + "?" + q + "&" + tenant + "=" + own, analystKey)),
                        rows(get("/v1/reports/" + rollup + "?" + q, key)), rollup + " totals as " + own);

                // Another tenant of the same kind, in JSON or CSV, or a rollup of another kind: 403 and no data.
                for (String format : List.of("json", "csv")) {
                    assertForbidden(get("/v1/reports/" + rollup + "?" + q + "&groupBy=" + String.join(",", dims)
                            + "&" + tenant + "=" + other + "&format=" + format, key));
                }
                assertForbidden(get("/v1/reports/" + rollup + "?" + q + "&groupBy=" + String.join(",", dims), wrongKindKey));
            }
        }
        String q = "?from=" + from + "&to=" + to + "&granularity=day";
        assertForbidden(get("/v1/reports/network" + q, adv1));
        assertForbidden(get("/v1/reports/network" + q, pub1));
        assertForbidden(get("/v1/reconcile/" + yesterday, adv1));
        assertForbidden(get("/v1/reconcile", pub1));
        assertEquals(401, get("/v1/reports/advertiser" + q, null).statusCode());
        assertEquals(401, get("/v1/reports/advertiser" + q, "ak_not-a-key").statusCode());

        JsonNode rollups = JSON.readTree(get("/v1/rollups", adv1).body()).get("rollups");
        Set<String> names = new HashSet<>();
        rollups.forEach(r -> names.add(r.get("name").asText()));
        assertEquals(Set.of("advertiser", "campaign", "creative", "country", "device_type"), names);
    }

    /** Equal rows, or a failure that names the first differing rows (not two dumps of thousands). */
    private static void assertRows(Map<Row, Map<String, Long>> expected, Map<Row, Map<String, Long>> actual, String what) {
        if (expected.equals(actual)) {
            return;
        }
        Set<Row> keys = new java.util.TreeSet<>(java.util.Comparator.comparing(Row::toString));
        keys.addAll(expected.keySet());
        keys.addAll(actual.keySet());
        List<String> diffs = new ArrayList<>();
        for (Row k : keys) {
            if (!java.util.Objects.equals(expected.get(k), actual.get(k))) {
                diffs.add(k.time() + " " + k.values() + ": expected " + expected.get(k) + ", API " + actual.get(k));
            }
        }
        org.junit.jupiter.api.Assertions.fail(what + ": " + diffs.size() + " of " + keys.size() + " rows differ, e.g.\n  "
                + String.join("\n  ", diffs.subList(0, Math.min(12, diffs.size()))));
    }

    private static void assertReports(Map<String, Map<Row, Map<String, Long>>> expected,
                                      Map<String, Map<Row, Map<String, Long>>> actual, String what) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((report, rows) -> assertRows(rows, actual.get(report), what + ": " + report));
    }

    private static void assertForbidden(HttpResponse<String> r) throws IOException {
        assertEquals(403, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        assertTrue(body.has("error"), r.body());
        assertFalse(body.has("rows") || body.has("drift") || body.has("days"), r.body());
        for (String metric : METRICS) {
            assertFalse(r.body().contains(metric), r.body());
        }
    }

    // ---------------------------------------------------------------------------------------
    // Traffic
    // ---------------------------------------------------------------------------------------

    private Beacon impression(Instant ts) {
        String adv = pick(ADVERTISERS);
        String campaign = "c" + (1 + rnd.nextInt(3));
        String pub = pick(PUBLISHERS);
        Map<String, String> dims = new TreeMap<>();
        dims.put("advertiser", adv);
        dims.put("campaign", campaign);
        dims.put("creative", campaign + "-cr" + (1 + rnd.nextInt(2)));
        dims.put("publisher", pub);
        dims.put("zone", pub + "-z" + (1 + rnd.nextInt(3)));
        String country = pick(COUNTRIES);
        String deviceType = pick(DEVICE_TYPES);
        // Some clients send lower-case countries and capitalised device types: the cube normalises them.
        dims.put("country", rnd.nextInt(100) < 15 ? country.toLowerCase(Locale.ROOT) : country);
        dims.put("deviceType", rnd.nextInt(100) < 15 ? deviceType.substring(0, 1).toUpperCase(Locale.ROOT) + deviceType.substring(1) : deviceType);
        dims.put("device", "device-" + rnd.nextInt(400));
        return new Beacon("impression", "imp-" + (seq++), ts, dims, 100 + rnd.nextInt(5000), null);
    }

    private Beacon click(Instant ts, String impressionId) {
        return new Beacon("click", "clk-" + (seq++), ts, Map.of(), 0, impressionId);
    }

    private Beacon conversion(Instant ts, String impressionId) {
        return new Beacon("conversion", "cnv-" + (seq++), ts, Map.of(), 1000 + rnd.nextInt(50_000), impressionId);
    }

    private Instant between(Instant from, Instant to) {
        return from.plusMillis((long) (rnd.nextDouble() * (to.toEpochMilli() - from.toEpochMilli())));
    }

    /** A time after {@code t} and before {@code end}. */
    private Instant later(Instant t, Instant end) {
        return between(t.plusSeconds(1), end.minusSeconds(1).isAfter(t.plusSeconds(1)) ? end.minusSeconds(1) : t.plusSeconds(2));
    }

    /** An impression of yesterday before 23:00, so that its clicks and conversions stay on yesterday. */
    private Beacon beforeEvening(List<Beacon> impressions) {
        while (true) {
            Beacon b = pick(impressions);
            if (b.ts().isBefore(b.day().atTime(23, 0).toInstant(ZoneOffset.UTC))) {
                return b;
            }
        }
    }

    private <T> T pick(List<T> values) {
        return values.get(rnd.nextInt(values.size()));
    }

    private record Outcome(long accepted, long duplicates, int rejected) {
    }

    /**
     * Posts one request and checks its answer against what the test knows: which lines are
     * invalid (their index and "field: rule"), which are first seen (accepted) and which are
     * repeats (duplicates). Records the accepted ones in the recount, with whether the
     * aggregator could attribute them (their impression stored by an earlier request).
     *
     * @param afterJob the events arrive after yesterday was reconciled
     */
    private Outcome post(List<Object> lines, boolean afterJob) {
        StringBuilder body = new StringBuilder();
        Map<Integer, String> expectedRejections = new TreeMap<>();
        Set<String> seenInRequest = new HashSet<>();
        Set<String> impressionsInRequest = new HashSet<>();
        long firstSeen = 0;
        long repeats = 0;
        for (int i = 0; i < lines.size(); i++) {
            Object line = lines.get(i);
            if (line instanceof Invalid bad) {
                body.append(bad.json()).append('\n');
                expectedRejections.put(i, bad.error());
                continue;
            }
            Beacon b = (Beacon) line;
            body.append(b.json()).append('\n');
            if (b.type().equals("impression") && !recount.entries.containsKey(b.identity())) {
                impressionsInRequest.add(b.id());
            }
            if (recount.entries.containsKey(b.identity()) || !seenInRequest.add(b.identity())) {
                repeats++;
            } else {
                firstSeen++;
            }
        }
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create("http://localhost:" + aggregator.port() + "/v1/events"))
                .header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode answer = readTree(r.body());
        Map<Integer, String> rejections = new TreeMap<>();
        answer.get("rejected").forEach(x -> rejections.put(x.get("index").asInt(), x.get("error").asText()));
        assertEquals(expectedRejections, rejections, "rejections name the field and the rule");
        assertEquals(firstSeen, answer.get("accepted").asLong(), r.body());
        assertEquals(repeats, answer.get("duplicates").asLong(), r.body());

        for (Object line : lines) {
            if (line instanceof Beacon b && !recount.entries.containsKey(b.identity())) {
                boolean attributed = false;
                if (b.impressionId() != null) {
                    if (impressionsInRequest.contains(b.impressionId())) {
                        throw new IllegalStateException("the scenario must not post a click with its impression: " + b);
                    }
                    attributed = recount.impressionStored(b);
                }
                recount.entries.put(b.identity(), new Entry(b, attributed, afterJob));
            }
        }
        return new Outcome(firstSeen, repeats, expectedRejections.size());
    }

    // ---------------------------------------------------------------------------------------
    // Reading
    // ---------------------------------------------------------------------------------------

    /** "type/id/day" of every raw row of the namespace. */
    private Set<String> rawIdentities() throws IOException {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Set<String> out = new HashSet<>();
        try (Table t = hbase.connection().getTable(layout.rawTable()); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result r : rs) {
                RawKey k = codec.parseRawKey(r.getRow());
                assertTrue(out.add(k.type() + "/" + k.id() + "/" + k.day()), "one row per identity");
            }
        }
        return out;
    }

    /** Every rollup by every granularity for one UTC day: "rollup/granularity" → rows. */
    private Map<String, Map<Row, Map<String, Long>>> reports(String key, LocalDate day) throws IOException {
        Map<String, Map<Row, Map<String, Long>>> out = new TreeMap<>();
        for (String rollup : ROLLUPS.keySet()) {
            for (String g : GRANULARITIES) {
                out.put(rollup + "/" + g, report(key, rollup, day, g));
            }
        }
        return out;
    }

    /** One UTC day of a rollup grouped by all its dimensions, without zero metrics and empty rows. */
    private Map<Row, Map<String, Long>> report(String key, String rollup, LocalDate day, String granularity) throws IOException {
        List<String> dims = ROLLUPS.get(rollup);
        String path = "/v1/reports/" + rollup + "?from=" + day + "&to=" + day.plusDays(1) + "&granularity=" + granularity
                + "&metrics=" + String.join(",", METRICS) + (dims.isEmpty() ? "" : "&groupBy=" + String.join(",", dims));
        return rows(get(path, key));
    }

    /** A rollup's totals for one day (no groupBy). */
    private Map<String, Long> total(String key, String rollup, LocalDate day) throws IOException {
        Map<Row, Map<String, Long>> rows = report(key, rollup, day, "day");
        Map<String, Long> sum = new TreeMap<>();
        rows.values().forEach(m -> m.forEach((k, v) -> sum.merge(k, v, Long::sum)));
        return sum;
    }

    private JsonNode days(String key, String rollup, LocalDate day) throws IOException {
        return days(key, rollup, day, day.plusDays(1));
    }

    private JsonNode days(String key, String rollup, LocalDate from, LocalDate to) throws IOException {
        HttpResponse<String> r = get("/v1/reports/" + rollup + "?from=" + from + "&to=" + to + "&granularity=day", key);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("days");
    }

    private static Map<Row, Map<String, Long>> rows(HttpResponse<String> r) throws IOException {
        assertEquals(200, r.statusCode(), r.body());
        Map<Row, Map<String, Long>> out = new HashMap<>();
        for (JsonNode row : JSON.readTree(r.body()).get("rows")) {
            String time = row.has("time") ? OffsetDateTime.parse(row.get("time").asText()).toInstant().toString() : "all";
            List<String> values = new ArrayList<>();
            row.get("dimensions").forEach(v -> values.add(v.asText()));
            Map<String, Long> metrics = new TreeMap<>();
            row.get("metrics").fields().forEachRemaining(m -> {
                if (m.getValue().isNumber() && m.getValue().asLong() != 0) {
                    metrics.put(m.getKey(), m.getValue().asLong());
                }
            });
            if (!metrics.isEmpty()) {
                assertTrue(out.put(new Row(time, values), metrics) == null, "one row per bucket and group");
            }
        }
        return out;
    }

    private HttpResponse<String> get(String pathAndQuery, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + api.port() + pathAndQuery)).GET();
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return send(b.build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode readTree(String s) {
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The independent recount
    // ---------------------------------------------------------------------------------------

    /** A report row: bucket start (UTC instant text) and the dimension values in rollup order. */
    record Row(String time, List<String> values) {
    }

    /** An event as a client sends it. */
    record Beacon(String type, String id, Instant ts, Map<String, String> dims, long money, String impressionId) {
        /** The dedup identity: type, id and UTC day of ts. */
        String identity() {
            return type + "/" + id + "/" + day();
        }

        LocalDate day() {
            return LocalDate.ofInstant(ts, ZoneOffset.UTC);
        }

        /** The dimension value as the cube normalises it: countries upper case, device types lower case. */
        String dim(String name) {
            String v = dims.getOrDefault(name, "");
            return switch (name) {
                case "country" -> v.toUpperCase(Locale.ROOT);
                case "deviceType" -> v.toLowerCase(Locale.ROOT);
                default -> v;
            };
        }

        String json() {
            ObjectNode o = JSON.createObjectNode();
            o.put("type", type).put("id", id).put("ts", ts.toString());
            dims.forEach(o::put);
            switch (type) {
                case "impression" -> o.put("costMicros", money);
                case "conversion" -> o.put("impressionId", impressionId).put("valueMicros", money);
                default -> o.put("impressionId", impressionId);
            }
            return o.toString();
        }
    }

    /** An invalid line and the rejection it must get. */
    record Invalid(String json, String error) {
    }

    /**
     * A stored event.
     *
     * @param attributedLive its impression was stored before it (so the aggregator attributed it)
     * @param afterJob       it arrived after yesterday was reconciled (the job never saw it)
     */
    record Entry(Beacon beacon, boolean attributedLive, boolean afterJob) {
    }

    /** Expected counters, from the events sent, by the rules of SPEC.md. */
    static final class Recount {
        final Map<String, Entry> entries = new LinkedHashMap<>();

        Set<String> identities(java.util.function.Predicate<Entry> which) {
            return entries.entrySet().stream().filter(e -> which.test(e.getValue())).map(Map.Entry::getKey).collect(Collectors.toSet());
        }

        /** The impression of a click or conversion, if stored on its day or the two days before. */
        Beacon impressionOf(Beacon b, java.util.function.Predicate<Entry> which) {
            for (int back = 0; back <= 2; back++) {
                Entry e = entries.get("impression/" + b.impressionId() + "/" + b.day().minusDays(back));
                if (e != null && which.test(e)) {
                    return e.beacon;
                }
            }
            return null;
        }

        boolean impressionStored(Beacon b) {
            return impressionOf(b, e -> true) != null;
        }

        /** What the live counters must hold for {@code day} when nothing went wrong. */
        Map<String, Map<Row, Map<String, Long>>> live(LocalDate day) {
            return count(day, e -> true, e -> e.attributedLive ? impressionOf(e.beacon, x -> true) : null);
        }

        /** What the counters must hold for {@code day} after the nightly job. */
        Map<String, Map<Row, Map<String, Long>>> exact(LocalDate day) {
            return count(day, e -> !e.afterJob, e -> impressionOf(e.beacon, x -> !x.afterJob));
        }

        private Map<String, Map<Row, Map<String, Long>>> count(LocalDate day, java.util.function.Predicate<Entry> which,
                                                                 java.util.function.Function<Entry, Beacon> attribution) {
            Map<String, Map<Row, Map<String, Long>>> out = new TreeMap<>();
            for (String rollup : ROLLUPS.keySet()) {
                for (String g : GRANULARITIES) {
                    out.put(rollup + "/" + g, new HashMap<>());
                }
            }
            for (Entry e : entries.values()) {
                Beacon b = e.beacon;
                if (!b.day().equals(day) || !which.test(e)) {
                    continue;
                }
                Map<String, Long> deltas = new TreeMap<>();
                Beacon dimsFrom = b;
                boolean unattributed = false;
                switch (b.type()) {
                    case "impression" -> {
                        deltas.put("impressions", 1L);
                        deltas.put("spendMicros", b.money());
                    }
                    case "click" -> deltas.put("clicks", 1L);
                    default -> {
                        deltas.put("conversions", 1L);
                        deltas.put("conversionValueMicros", b.money());
                    }
                }
                if (b.impressionId() != null) {
                    dimsFrom = attribution.apply(e);
                    if (dimsFrom == null) {
                        unattributed = true;
                        deltas.put(b.type().equals("click") ? "unattributedClicks" : "unattributedConversions", 1L);
                    }
                }
                for (var r : ROLLUPS.entrySet()) {
                    if (unattributed && !r.getValue().isEmpty()) {
                        continue;
                    }
                    List<String> values = new ArrayList<>();
                    for (String dim : r.getValue()) {
                        values.add(dimsFrom.dim(dim));
                    }
                    for (String g : GRANULARITIES) {
                        Instant bucket = b.ts().truncatedTo(g.equals("hour") ? ChronoUnit.HOURS : ChronoUnit.DAYS);
                        Map<String, Long> cell = out.get(r.getKey() + "/" + g)
                                .computeIfAbsent(new Row(bucket.toString(), values), k -> new TreeMap<>());
                        deltas.forEach((m, v) -> cell.merge(m, v, Long::sum));
                    }
                }
            }
            for (Map<Row, Map<String, Long>> rows : out.values()) {
                rows.values().forEach(m -> m.values().removeIf(v -> v == 0));
                rows.values().removeIf(Map::isEmpty);
            }
            return out;
        }
    }

    private static Map<String, List<String>> rollups() {
        Map<String, List<String>> r = new LinkedHashMap<>();
        r.put("network", List.of());
        r.put("advertiser", List.of("advertiser"));
        r.put("campaign", List.of("advertiser", "campaign"));
        r.put("creative", List.of("advertiser", "campaign", "creative"));
        r.put("country", List.of("advertiser", "country"));
        r.put("publisher", List.of("publisher"));
        r.put("zone", List.of("publisher", "zone"));
        r.put("device_type", List.of("advertiser", "deviceType"));
        return Collections.unmodifiableMap(r);
    }

    /** The default ads cube with 4 salt buckets: the same code paths, a quarter of the regions to create. */
    private static Cube smallCube() {
        try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return CubeLoader.parse("ads.yaml with 4 buckets", yaml.replace("Buckets: 16", "Buckets: 4"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The real tables, except that while {@link #loseFlushes} is set every counter-table batch
     * fails before it reaches HBase: the flush is lost as when the region server dies under it.
     */
    static final class FaultyCounters implements TableSource {
        private final TableSource real;
        private final Set<TableName> counterTables = new HashSet<>();
        volatile boolean loseFlushes;

        FaultyCounters(TableSource real, TableLayout layout) {
            this.real = real;
            layout.cube().rollups().forEach(r -> counterTables.add(layout.counterTable(r)));
        }

        @Override
        public Table open(TableName name) throws IOException {
            Table t = real.open(name);
            if (!counterTables.contains(name)) {
                return t;
            }
            return (Table) Proxy.newProxyInstance(Table.class.getClassLoader(), new Class<?>[] {Table.class}, (p, m, args) -> {
                if (loseFlushes && m.getName().equals("batch")) {
                    throw new IOException("injected: region server went away before the flush reached it");
                }
                try {
                    return m.invoke(t, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
        }
    }
}
