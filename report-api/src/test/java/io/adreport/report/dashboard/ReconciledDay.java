package io.adreport.report.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.report.CounterLoader;
import io.adreport.report.KnownEvent;
import io.adreport.report.ReportConfig;
import io.adreport.report.ReportFixture;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import io.adreport.campaigns.CampaignRoutes;
import io.adreport.campaigns.budget.PacingRates;

/**
 * A day that the real reconcile job recounted, behind its own report API: what the dashboard's
 * drift table is checked against.
 *
 * <p>In a fresh namespace of the shared mini cluster: the raw events of {@link #DAY}
 * (impressions, clicks and conversions joined to them by id) written with the production codec,
 * as the aggregator stores them; live counters that miss some of them and count one twice (a
 * flusher killed before its flush, a flush replayed); then {@link Reconciler#reconcile}, the
 * entry the nightly scheduler and {@code bin/adreport reconcile} use, over that day. The
 * report fixture's namespace is not reconciled: its counters come from events without raw rows,
 * which a recount would zero for every other test in the JVM.
 *
 * <p>Expected figures come from the test's own counting ({@link CounterLoader#deltas}), not from
 * the job: the events read are the raw rows written; the cells corrected and the absolute drift
 * are the cells the damage moved and by how much.
 */
final class ReconciledDay implements AutoCloseable {
    static final LocalDate DAY = LocalDate.parse("2026-11-01");

    /** Every event of the day, as the exact counters count it. */
    final List<KnownEvent> events;
    /** What the job reported. */
    final DriftReport report;
    /** Cells the damage left wrong, and by how much (stored minus exact). */
    final Map<CounterLoader.Cell, Long> damage;
    final String baseUrl;
    final String analystKey;
    private final Javalin app;
    private final HttpClient http = HttpClient.newHttpClient();

    private ReconciledDay(List<KnownEvent> events, DriftReport report, Map<CounterLoader.Cell, Long> damage, Javalin app,
                          String analystKey) {
        this.events = events;
        this.report = report;
        this.damage = damage;
        this.app = app;
        this.baseUrl = "http://127.0.0.1:" + app.port();
        this.analystKey = analystKey;
    }

    static ReconciledDay create(MiniHBase hbase) throws IOException, InterruptedException {
        Cube cube = ReportFixture.smallCube();
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("drift"));
        long t0 = System.nanoTime();
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        long t1 = System.nanoTime();
        MutableClock clock = new MutableClock(DAY.plusDays(1).atTime(12, 0).toInstant(ZoneOffset.UTC));

        Traffic traffic = new Traffic(new Random(20261101));
        RawEventCodec codec = new RawEventCodec(new RowKeyCodec(cube));
        List<Put> rows = new ArrayList<>();
        traffic.raw.forEach(e -> rows.add(codec.toPut(e, e.ts().plusSeconds(2))));
        try (Table raw = hbase.connection().getTable(layout.rawTable())) {
            raw.put(rows);
        }

        // Live counters: all events but the lost ones (twelve impressions and a click), and one
        // impression's flush applied twice.
        CounterLoader live = new CounterLoader(hbase.connection(), cube, layout);
        List<KnownEvent> lost = new ArrayList<>();
        List<KnownEvent> counted = new ArrayList<>();
        for (int i = 0; i < traffic.known.size(); i++) {
            (i < 12 || i == Traffic.IMPRESSIONS ? lost : counted).add(traffic.known.get(i));
        }
        List<KnownEvent> replayed = List.of(traffic.known.get(12));
        Map<CounterLoader.Cell, Long> stored = new HashMap<>(live.deltas(counted));
        live.deltas(replayed).forEach((c, d) -> stored.merge(c, d, Long::sum));
        live.add(stored);
        Map<CounterLoader.Cell, Long> damage = new HashMap<>();
        live.deltas(replayed).forEach((c, d) -> damage.merge(c, d, Long::sum));
        live.deltas(lost).forEach((c, d) -> damage.merge(c, -d, Long::sum));
        damage.values().removeIf(d -> d == 0);

        Reconciler reconciler = new Reconciler(hbase.configuration(), hbase.connection(), layout,
                ReconcileConfig.of(Map.of("reconcile.grace.ms", "0")), clock);
        DriftReport report = reconciler.reconcile(DAY, false, null);
        System.err.printf("reconciled day: tables %.1f s, reconcile %.1f s; events read %d, cells corrected %d, absolute drift %d%n",
                (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9, report.totals().eventsRead(),
                report.totals().cellsCorrected(), report.totals().absoluteDrift());

        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.defaults(),
                new Metrics(), clock);
        String analystKey = deps.keys().create("analyst");
        Javalin app = ReportApi.create(deps, // the dashboard's budget card reads the campaign routes
                CampaignRoutes.create(deps.connection(), deps.layout(), deps.days(), deps.clock(), PacingRates.NONE)).start("127.0.0.1", 0);
        return new ReconciledDay(List.copyOf(traffic.known), report, Map.copyOf(damage), app, analystKey);
    }

    long impressions() {
        return events.stream().filter(e -> e.type().equals("impression")).count();
    }

    long expectedAbsoluteDrift() {
        return damage.values().stream().mapToLong(Math::abs).sum();
    }

    /** {@code GET path} with the analyst key, as JSON. */
    JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Authorization", "Bearer " + analystKey).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + ": " + r.statusCode() + " " + r.body());
        }
        return new ObjectMapper().readTree(r.body());
    }

    @Override
    public void close() {
        app.stop();
    }

    /**
     * The day's traffic in two forms: raw events as stored (join events carry only the
     * impression's id) and known events as counted (join events carry the impression's
     * dimensions), in the same order.
     */
    private static final class Traffic {
        static final int IMPRESSIONS = 240;
        final List<Event> raw = new ArrayList<>();
        final List<KnownEvent> known = new ArrayList<>();

        Traffic(Random rnd) {
            Instant start = DAY.atStartOfDay().toInstant(ZoneOffset.UTC);
            List<Event> impressions = new ArrayList<>();
            for (int i = 0; i < IMPRESSIONS; i++) {
                String adv = "adv" + (1 + rnd.nextInt(3));
                String pub = "pub" + (1 + rnd.nextInt(2));
                Map<String, String> dims = Map.of("advertiser", adv, "campaign", adv + "-c" + (1 + rnd.nextInt(2)),
                        "creative", "cr" + (1 + rnd.nextInt(2)), "publisher", pub, "zone", pub + "-z1",
                        "country", rnd.nextBoolean() ? "US" : "DE", "deviceType", rnd.nextBoolean() ? "mobile" : "desktop");
                Instant ts = start.plusSeconds(rnd.nextInt(20 * 3600));
                long cost = 100 + rnd.nextInt(4900);
                Event imp = new Event("impression", "imp-" + i, ts, dims, Map.of("costMicros", cost), null, Map.of());
                impressions.add(imp);
                raw.add(imp);
                known.add(KnownEvent.impression(ts, dims, cost));
            }
            for (int i = 0; i < 60; i++) { // clicks and conversions within three hours of their impression
                Event imp = impressions.get(rnd.nextInt(impressions.size()));
                Instant ts = imp.ts().plusSeconds(1 + rnd.nextInt(3 * 3600));
                if (i % 6 == 5) {
                    long value = 1_000 + rnd.nextInt(50_000);
                    raw.add(new Event("conversion", "conv-" + i, ts, Map.of(), Map.of("valueMicros", value), imp.id(), Map.of()));
                    known.add(new KnownEvent("conversion", ts, imp.dimensions(), 0, value));
                } else {
                    raw.add(new Event("click", "click-" + i, ts, Map.of(), Map.of(), imp.id(), Map.of()));
                    known.add(KnownEvent.click(ts, imp.dimensions()));
                }
            }
        }
    }
}
