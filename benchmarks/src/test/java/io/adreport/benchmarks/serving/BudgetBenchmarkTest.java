package io.adreport.benchmarks.serving;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.campaign.Budget;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.campaign.CapWindow;
import io.adreport.schema.campaign.FrequencyCap;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.inventory.Ad;
import io.adreport.schema.inventory.ZoneInventory;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.ServeConfig;
import io.adreport.serving.ServingRoutes;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import io.adreport.campaigns.CampaignRoutes;
import java.util.stream.Stream;

/**
 * Budgets under bursts, and the ad endpoint under ingest, in one mini-cluster JVM with the
 * default settings ({@code spend.flush.ms=250}, {@code serve.pacing.interval.ms=250}).
 *
 * <p>Part 1, the stop: one campaign with a daily budget of {@code bench.budget} micros receives
 * impressions of 1,000 micros in bursts (1 s at {@code bench.peak} events/s, 1 s at a fifth of
 * it), posted in batches every 50 ms, for as long as {@code POST /v1/serve/check} (polled every
 * 10 ms by another thread) does not answer {@code exhausted}. The pacing throttle is not applied
 * to this traffic (it stands for requests already admitted), so this is the exhaustion path alone,
 * the worst case. Measured: crossing time (the ack of the batch that took accepted spend past the
 * budget), stop time (the first {@code exhausted} answer), the overspend (accepted spend − budget),
 * beside the formula peak spend rate × (spend flush + pacing interval).
 *
 * <p>Part 2, serving: {@code POST /v1/serve/ad} for a zone of 20 ads (20 campaigns with 5 cap
 * windows and budgets) over {@code bench.devices} device profiles, 8 clients closed loop, while
 * the aggregator ingests impressions at {@code bench.ingest} events/s; beside it the floor, the
 * bare profile Get through the HBase client, in the same run.
 *
 * <p>A measurement, not a test of behaviour: it asserts nothing and runs only with
 * {@code -Dbench=true}. What a budget must do (no campaign served or allowed once exhausted, live
 * spend within a flush, exact after the nightly job) is asserted by the serving module's
 * {@code BudgetTest}.
 *
 * <p>Run: {@code mvn -B -o verify -pl benchmarks -am -Dtest=BudgetBenchmarkTest -Dbench=true
 * -Dsurefire.failIfNoSpecifiedTests=false}; results in {@code benchmarks/target/budget-bench.txt}.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class BudgetBenchmarkTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long BUDGET = Long.getLong("bench.budget", 150_000_000L);
    private static final int PEAK = Integer.getInteger("bench.peak", 10_000);
    private static final int DEVICES = Integer.getInteger("bench.devices", 200_000);
    private static final int INGEST = Integer.getInteger("bench.ingest", 3_000);
    private static final int CLIENTS = 8;
    private static final Duration RUN = Duration.ofSeconds(Integer.getInteger("bench.seconds", 30));
    private static final long COST = 1_000;
    private static final byte[] SECRET = "0123456789abcdef-budget-bench".getBytes(StandardCharsets.UTF_8);

    @Test
    void measures_the_budget_stop_and_serving_beside_ingest(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        String ns = hbase.freshNamespace("budgetbench");
        TableLayout layout = new TableLayout(cube, ns);
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        StringBuilder out = new StringBuilder();
        DeviceHasher hasher = new DeviceHasher(SECRET);
        CampaignStore store = new CampaignStore(hbase.connection(), layout);
        List<FrequencyCap> caps = List.of(cap(1, "5m"), cap(2, "2h"), cap(5, "1d"), cap(10, "14d"), cap(20, "120d"));
        store.put(new Campaign("adv0", "burst", Campaign.Status.active, null, null, List.of(), 0, new Budget(BUDGET, 0, ZoneId.of("UTC"))));
        List<Ad> ads = new ArrayList<>();
        for (int c = 0; c < 20; c++) {
            store.put(new Campaign("adv" + c % 5, "camp" + c, Campaign.Status.active, null, null, caps, 0,
                    new Budget(1_000_000_000_000L, 0, ZoneId.of("America/New_York"))));
            ads.add(new Ad("adv" + c % 5, "camp" + c, "cr" + c, 1_000_000 + 100_000L * (c % 7), List.of()));
        }
        new ZoneStore(hbase.connection(), layout).put(new ZoneInventory("site", "bz", ads, 0));
        long t0 = System.nanoTime();
        long views = loadProfiles(hbase, layout, hasher, Instant.now());
        out.append(String.format("profiles: %,d devices, %,d view cells loaded in %.1f s%n", DEVICES, views, (System.nanoTime() - t0) / 1e9));

        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, Clock.systemUTC());
        ServingRoutes serving = ServingRoutes.create(hbase.connection(), layout, hasher, ProfileConfig.defaults(),
                ServeConfig.of(Map.of()), Clock.systemUTC(), metrics);
        Javalin api = ReportApi.create(deps, Stream.concat(CampaignRoutes.create(deps.connection(), deps.layout(), deps.days(), deps.clock(),
                serving.rates()).stream(), serving.routes().stream()).toList()).start("127.0.0.1", 0);
        String key = deps.keys().create("adserver");
        AggregatorConfig aggConfig = AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "budget-bench"));
        Aggregator agg = Aggregator.start(hbase.connection(), layout, new EventParser(cube, Clock.systemUTC(), Duration.ofDays(7), hasher),
                aggConfig, Clock.systemUTC(), TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults());
        try {
            URI ingest = URI.create("http://127.0.0.1:" + agg.port() + "/v1/events");
            URI check = URI.create("http://127.0.0.1:" + api.port() + "/v1/serve/check");
            out.append(stop(ingest, check, key, aggConfig.spendFlushInterval(), ServeConfig.of(Map.of()).pacingInterval()));

            URI serve = URI.create("http://127.0.0.1:" + api.port() + "/v1/serve/ad");
            serveAds(serve, key, Duration.ofSeconds(5)); // warm-up
            List<String> campaignKeys = new ArrayList<>();
            for (int c = 0; c < 20; c++) {
                campaignKeys.add("adv" + c % 5 + "/camp" + c);
            }
            AtomicBoolean stopIngest = new AtomicBoolean();
            ExecutorService bg = Executors.newSingleThreadExecutor();
            long ingestStart = System.nanoTime();
            Future<Double> load = bg.submit(() -> ingest(ingest, campaignKeys, INGEST, RUN.plusSeconds(60), stopIngest));
            Thread.sleep(3000);
            String floor = floor(hbase, layout, hasher, Duration.ofSeconds(10));
            String during = serveAds(serve, key, RUN);
            stopIngest.set(true);
            double achieved = load.get();
            bg.shutdown();
            out.append("floor, bare profile Get (client, no HTTP), beside ingest: ").append(floor).append('\n');
            out.append("POST /v1/serve/ad beside ingest:                           ").append(during).append('\n');
            out.append(String.format("ingest meanwhile: %,.0f events/s (asked %,d) over %.0f s%n", achieved, INGEST,
                    (System.nanoTime() - ingestStart) / 1e9));
            out.append(String.format("load average at the end: %.2f on %d cores%n",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), Runtime.getRuntime().availableProcessors()));
            Files.writeString(Path.of("target", "budget-bench.txt"), out);
            System.err.print(out);
        } finally {
            api.stop();
            serving.close();
            agg.close();
        }
    }

    /** Part 1: bursts into one campaign until the check answers exhausted. */
    private static String stop(URI ingest, URI check, String key, Duration flush, Duration pacing) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        AtomicBoolean exhausted = new AtomicBoolean();
        AtomicLong stopNanos = new AtomicLong();
        AtomicLong checks = new AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Exception> pollerFailure = new java.util.concurrent.atomic.AtomicReference<>();
        long start = System.nanoTime();
        Thread poller = new Thread(() -> {
            try {
                while (!exhausted.get() && System.nanoTime() - start < TimeUnit.MINUTES.toNanos(5)) {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(check).header("Authorization", "Bearer " + key)
                            .POST(HttpRequest.BodyPublishers.ofString("{\"device\":\"poller\",\"campaigns\":[\"adv0/burst\"]}")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    checks.incrementAndGet();
                    JsonNode a = JSON.readTree(r.body()).path("campaigns").path(0);
                    if ("exhausted".equals(a.path("reason").asText())) {
                        stopNanos.set(System.nanoTime());
                        exhausted.set(true);
                    }
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                pollerFailure.set(e); // rethrown on the benchmark's thread below: a poller that died must not pass for "never exhausted"
                exhausted.set(true);
            }
        }, "bench-poller");
        poller.start();
        long accepted = 0;
        long crossNanos = 0;
        long seq = 0;
        long peakSent = 0;
        double peakSeconds = 0;
        SplittableRandom rng = new SplittableRandom(15);
        long tick = start;
        while (!exhausted.get() && System.nanoTime() - start < TimeUnit.MINUTES.toNanos(5)) {
            boolean peak = ((System.nanoTime() - start) / 1_000_000_000L) % 2 == 0;
            int n = (peak ? PEAK : PEAK / 5) / 20;
            StringBuilder b = new StringBuilder("[");
            Instant ts = Instant.now();
            for (int i = 0; i < n; i++) {
                b.append(i == 0 ? "" : ",").append("{\"type\":\"impression\",\"id\":\"burst-").append(seq++).append("\",\"ts\":\"").append(ts)
                        .append("\",\"device\":\"d").append(rng.nextInt(1_000_000)).append("\",\"advertiser\":\"adv0\",\"campaign\":\"burst\","
                                + "\"creative\":\"cr\",\"publisher\":\"site\",\"zone\":\"bz\",\"country\":\"US\",\"deviceType\":\"phone\","
                                + "\"costMicros\":" + COST + "}");
            }
            long sentAt = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(ingest).POST(HttpRequest.BodyPublishers.ofString(b.append(']').toString()))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                accepted += JSON.readTree(r.body()).path("accepted").asLong() * COST;
                if (peak) {
                    peakSent += n;
                    peakSeconds += (System.nanoTime() - sentAt) / 1e9;
                }
                if (crossNanos == 0 && accepted >= BUDGET) {
                    crossNanos = System.nanoTime();
                }
            }
            tick += 50_000_000L;
            long sleep = tick - System.nanoTime();
            if (sleep > 0) {
                Thread.sleep(sleep / 1_000_000L, (int) (sleep % 1_000_000L));
            } else {
                tick = System.nanoTime();
            }
        }
        poller.join();
        if (pollerFailure.get() != null) {
            throw new IllegalStateException("the check poller failed", pollerFailure.get());
        }
        double elapsed = ((crossNanos == 0 ? System.nanoTime() : crossNanos) - start) / 1e9;
        double averageRate = accepted / (double) COST / ((System.nanoTime() - start) / 1e9);
        double peakSpend = PEAK * (double) COST; // micros/s asked at the peak
        double formula = peakSpend * (flush.toMillis() + pacing.toMillis()) / 1000.0;
        long over = accepted - BUDGET;
        return String.format("budget stop: budget %,d micros, impressions of %,d micros, bursts 1 s at %,d/s then 1 s at %,d/s (asked)%n"
                        + "  crossed after %.2f s; stopped (first exhausted answer) %+.3f s after crossing; %,d checks polled%n"
                        + "  accepted spend %,d micros: overspend %,d micros = %.3f%% of the budget%n"
                        + "  formula peak spend rate x (spend flush %d ms + pacing %d ms) = %,.0f micros = %.2f%% of the budget%n"
                        + "  events/s achieved: %,.0f on average; during peak batches the post itself took %.1f ms per 1,000 events%n",
                BUDGET, COST, PEAK, PEAK / 5, elapsed, crossNanos == 0 ? Double.NaN : (stopNanos.get() - crossNanos) / 1e9, checks.get(),
                accepted, over, 100.0 * over / BUDGET, flush.toMillis(), pacing.toMillis(), formula, 100.0 * formula / BUDGET,
                averageRate, peakSent == 0 ? 0 : 1000 * peakSeconds * 1000 / peakSent);
    }

    private static FrequencyCap cap(int max, String window) {
        return new FrequencyCap(max, CapWindow.parse("window", window));
    }

    private static long loadProfiles(MiniHBase hbase, TableLayout layout, DeviceHasher hasher, Instant now) throws Exception {
        ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
        SplittableRandom rng = new SplittableRandom(42);
        long views = 0;
        try (BufferedMutator m = hbase.connection().getBufferedMutator(layout.profilesTable())) {
            for (int d = 0; d < DEVICES; d++) {
                Put p = new Put(keys.row(hasher.hash("bench-device-" + d))).setDurability(Durability.SKIP_WAL);
                int campaigns = rng.nextInt(4);
                for (int c = 0; c < campaigns; c++) {
                    int camp = rng.nextInt(20);
                    long ts = now.toEpochMilli() - rng.nextLong(30L * 86_400_000L);
                    p.addColumn(TableLayout.VIEW_FAMILY, ViewCells.qualifier("adv" + camp % 5, "camp" + camp, ts, d + "-" + c), ts, new byte[0]);
                    views++;
                }
                if (!p.isEmpty()) {
                    m.mutate(p);
                }
            }
        }
        return views;
    }

    private static String floor(MiniHBase hbase, TableLayout layout, DeviceHasher hasher, Duration d) throws Exception {
        ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
        return ClosedLoop.run(CLIENTS, d, rng -> {
            try (Table t = hbase.connection().getTable(layout.profilesTable())) {
                t.get(new Get(keys.row(hasher.hash("bench-device-" + rng.nextInt(DEVICES)))));
            }
        });
    }

    private static String serveAds(URI serve, String key, Duration d) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return ClosedLoop.run(CLIENTS, d, rng -> {
            String body = "{\"site\":\"site\",\"zone\":\"bz\",\"device\":\"bench-device-" + rng.nextInt(DEVICES) + "\"}";
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(serve).header("Authorization", "Bearer " + key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(r.statusCode() + " " + r.body());
            }
        });
    }

    /** Posts impressions of the given campaigns with 2 threads at about {@code rate} events/s; returns events/s. */
    private static double ingest(URI url, List<String> campaigns, double rate, Duration d, AtomicBoolean stop) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        AtomicLong sent = new AtomicLong();
        AtomicLong seq = new AtomicLong();
        long start = System.nanoTime();
        long end = start + d.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> f = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            f.add(pool.submit(() -> {
                SplittableRandom rng = new SplittableRandom(Thread.currentThread().getId());
                while (System.nanoTime() < end && !stop.get()) {
                    if (sent.get() >= rate * (System.nanoTime() - start) / 1e9) {
                        Thread.sleep(5);
                        continue;
                    }
                    StringBuilder b = new StringBuilder("[");
                    Instant ts = Instant.now();
                    for (int i = 0; i < 500; i++) {
                        String c = campaigns.get(rng.nextInt(campaigns.size()));
                        int slash = c.indexOf('/');
                        b.append(i == 0 ? "" : ",").append("{\"type\":\"impression\",\"id\":\"bg").append(seq.incrementAndGet())
                                .append("\",\"ts\":\"").append(ts).append("\",\"device\":\"bench-device-").append(rng.nextInt(DEVICES))
                                .append("\",\"advertiser\":\"").append(c, 0, slash).append("\",\"campaign\":\"").append(c.substring(slash + 1))
                                .append("\",\"creative\":\"cr1\",\"publisher\":\"site\",\"zone\":\"bz\","
                                        + "\"country\":\"US\",\"deviceType\":\"phone\",\"costMicros\":1200}");
                    }
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url).POST(HttpRequest.BodyPublishers.ofString(b.append(']').toString()))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        sent.addAndGet(500);
                    } else {
                        Thread.sleep(50);
                    }
                }
                return null;
            }));
        }
        for (Future<?> x : f) {
            x.get();
        }
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        return sent.get() / ((System.nanoTime() - start) / 1e9);
    }
}
