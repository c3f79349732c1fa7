package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import io.javalin.Javalin;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The ranked top-N on what production writes: a live aggregator receives skewed impressions of
 * yesterday and today over HTTP and flushes them (its writer cells); the top campaigns by
 * impressions and by spend are asked of the report API over real HTTP, first with both days live,
 * then after the nightly pass (the real {@link Reconciler}: close, recount, ranked index of
 * yesterday, reconciled) for yesterday alone (read from the index) and for both days (index plus
 * today's live counters). Every answer equals this test's own recount of the events it sent.
 */
@ExtendWith(HBaseExtension.class)
class LiveTopNTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final int N = 5;

    /** One impression as sent, for the recount. */
    private record Sent(LocalDate day, String advertiser, String campaign, long costMicros) {
    }

    @Test
    void top_campaigns_from_a_live_aggregator_equal_the_recount_before_and_after_the_nightly_index(MiniHBase hbase) throws Exception {
        Cube cube;
        try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            cube = CubeLoader.parse("ads.yaml with 4 buckets",
                    new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("Buckets: 16", "Buckets: 4"));
        }
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("livetopn"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.HOURS));
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        LocalDate yesterday = today.minusDays(1);
        Aggregator agg = Aggregator.start(hbase.connection(), layout,
                new EventParser(cube, clock, Duration.ofDays(7), new DeviceHasher("live-topn-device-secret-0123".getBytes(StandardCharsets.UTF_8))),
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "live-topn", "flush.interval.ms", "60000")),
                clock, TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults());
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.defaults(), new Metrics(), clock);
        String analyst = deps.keys().create("analyst");
        Javalin api = ReportApi.create(deps).start("127.0.0.1", 0);
        try {
            // Skewed traffic: a few heavy campaigns, a long tail, small costs so that ties are common.
            Random rnd = new Random(20261202);
            List<Sent> sent = new ArrayList<>();
            Instant yesterdayStart = yesterday.atStartOfDay(ZoneOffset.UTC).toInstant();
            long todaySeconds = Math.max(1, Duration.between(today.atStartOfDay(ZoneOffset.UTC).toInstant(), clock.instant()).getSeconds() - 1);
            for (int batch = 0; batch < 6; batch++) {
                StringBuilder body = new StringBuilder();
                for (int i = 0; i < 150; i++) {
                    boolean old = rnd.nextInt(3) > 0;
                    Instant ts = old ? yesterdayStart.plusSeconds(rnd.nextInt(86_400))
                            : today.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(rnd.nextLong(todaySeconds));
                    String adv = "adv" + skewed(rnd, 4);
                    String campaign = adv + "-c" + skewed(rnd, 15);
                    long cost = 1000L * (1 + rnd.nextInt(3));
                    sent.add(new Sent(LocalDate.ofInstant(ts, ZoneOffset.UTC), adv, campaign, cost));
                    body.append("{\"type\":\"impression\",\"id\":\"imp-").append(sent.size()).append("\",\"ts\":\"").append(ts)
                            .append("\",\"advertiser\":\"").append(adv).append("\",\"campaign\":\"").append(campaign)
                            .append("\",\"creative\":\"cr1\",\"publisher\":\"pub1\",\"zone\":\"z1\",\"country\":\"US\",\"deviceType\":\"phone\"")
                            .append(",\"device\":\"d-").append(rnd.nextInt(100)).append("\",\"costMicros\":").append(cost).append("}\n");
                }
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                        .header("Content-Type", "application/x-ndjson").POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), r.body());
                assertEquals(150, JSON.readTree(r.body()).get("accepted").asLong(), r.body());
            }
            agg.flushNow();
            String base = "http://127.0.0.1:" + api.port();

            // Both days live: the counters the aggregator wrote.
            assertTopN(base, analyst, sent, yesterday, today.plusDays(1));

            // The nightly pass for yesterday, after the aggregator has stopped (nothing for the close to wait for).
            agg.close();
            new Reconciler(hbase.configuration(), hbase.connection(), layout, ReconcileConfig.of(Map.of("reconcile.grace.ms", "0")), clock)
                    .reconcile(yesterday, false, null);
            JsonNode status = get(base + "/v1/reconcile/" + yesterday, analyst);
            assertEquals("reconciled", status.path("status").asText(), status.toString());
            assertTopN(base, analyst, sent, yesterday, today); // from yesterday's ranked index alone
            assertTopN(base, analyst, sent, yesterday, today.plusDays(1)); // the index beside today's live counters
        } finally {
            api.stop();
            agg.close();
        }
    }

    /** The top {@link #N} campaigns by impressions and by spend over [from, to) equal the recount of {@code sent}. */
    private static void assertTopN(String base, String key, List<Sent> sent, LocalDate from, LocalDate to) throws Exception {
        for (String metric : List.of("impressions", "spendMicros")) {
            Map<String, Long> totals = new TreeMap<>();
            for (Sent s : sent) {
                if (!s.day().isBefore(from) && s.day().isBefore(to)) {
                    totals.merge(s.advertiser() + "/" + s.campaign(), metric.equals("impressions") ? 1 : s.costMicros(), Long::sum);
                }
            }
            // Descending by the metric; ties in groupBy value order (advertiser, then campaign), as every report orders them.
            List<String> expected = totals.entrySet().stream()
                    .sorted(Comparator.comparing((Map.Entry<String, Long> e) -> -e.getValue()).thenComparing(Map.Entry::getKey))
                    .limit(N).map(e -> e.getKey() + "=" + e.getValue()).toList();
            JsonNode report = get(base + "/v1/reports/campaign?from=" + from + "&to=" + to + "&granularity=all&metrics=" + metric
                    + "&groupBy=advertiser,campaign&orderBy=-" + metric + "&limit=" + N, key);
            List<String> actual = new ArrayList<>();
            for (JsonNode row : report.path("rows")) {
                actual.add(row.path("dimensions").path("advertiser").asText() + "/" + row.path("dimensions").path("campaign").asText()
                        + "=" + row.path("metrics").path(metric).asLong());
            }
            assertTrue(totals.size() > N, "more campaigns than N, else the ranking proves nothing");
            assertEquals(expected, actual, "top " + N + " by " + metric + " over [" + from + ", " + to + ")");
        }
    }

    private static JsonNode get(String url, String key) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key)
                .timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** 1..n, 1 most likely (roughly Zipf). */
    private static int skewed(Random rnd, int n) {
        double u = rnd.nextDouble();
        return Math.min(n, 1 + (int) (n * u * u * u));
    }
}
