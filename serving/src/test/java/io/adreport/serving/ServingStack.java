package io.adreport.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import io.adreport.campaigns.CampaignRoutes;
import io.adreport.campaigns.budget.PacingRates;
import java.util.stream.Stream;

/**
 * The serving tests' stack on the shared mini cluster: a fresh namespace with the default ads
 * cube (4 salt buckets), a real aggregator (which writes each device view before the ack), the
 * report API with the campaign and serving routes, and keys for each role; plus the HTTP calls the tests make.
 */
final class ServingStack implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final byte[] SECRET = "0123456789abcdef-serving".getBytes(StandardCharsets.UTF_8);
    /** The beacon key both sides share: the ad server signs with it, the pixel verifies. */
    static final io.adreport.schema.trust.TrustConfig TRUST = io.adreport.schema.trust.TrustConfig.of(
            Map.of("beacon.keys", "s1:0123456789abcdef-serving-beacons"));

    final MiniHBase hbase;
    final MutableClock clock;
    final TableLayout layout;
    final Aggregator agg;
    final Javalin api;
    final ServingRoutes serving;
    final String base;
    final String analyst;
    final String adserver;
    final String adv1;
    final String adv2;

    ServingStack(MiniHBase hbase, MutableClock clock) throws Exception {
        // A generous read budget: these tests check exact cap decisions, which a loaded machine's
        // pause must not turn into degraded answers (ServeDeadlineTest tests the deadline itself).
        this(hbase, clock, Map.of("serve.deadline.ms", "5000"));
    }

    ServingStack(MiniHBase hbase, MutableClock clock, Map<String, String> serveSettings) throws Exception {
        this(hbase, clock, serveSettings, null, DeviceHashes.of(new DeviceHasher(SECRET)));
    }

    /**
     * A stack on namespace {@code ns} (null: a fresh one, its tables created) whose aggregator and
     * serving routes hash devices with {@code hasher} (a second stack on the same namespace with
     * other secrets is a restart with a rotated secret).
     */
    ServingStack(MiniHBase hbase, MutableClock clock, Map<String, String> serveSettings, String namespace, DeviceHashes hasher)
            throws Exception {
        this(hbase, clock, serveSettings, namespace, hasher, fewerBuckets(CubeLoader.defaultCube()));
    }

    /**
     * A stack on the built-in ads cube exactly as the product loads it (its source text travels
     * to the nightly job's tasks, which a cube built in code cannot).
     */
    static ServingStack withDefaultCube(MiniHBase hbase, MutableClock clock) throws Exception {
        return new ServingStack(hbase, clock, Map.of("serve.deadline.ms", "5000"), null, DeviceHashes.of(new DeviceHasher(SECRET)),
                CubeLoader.defaultCube());
    }

    /** The ads cube with 4 salt buckets (small tables for small tests). */
    private static Cube fewerBuckets(Cube ads) {
        return new Cube(ads.name(), ads.event(), ads.dimensions(), ads.numericFields(), ads.metrics(), ads.derived(),
                ads.rollups(), 4, 4, ads.rawTtlDays(), ads.maxValueLength());
    }

    private ServingStack(MiniHBase hbase, MutableClock clock, Map<String, String> serveSettings, String namespace, DeviceHashes hasher,
                         Cube cube) throws Exception {
        this.hbase = hbase;
        this.clock = clock;
        String ns = namespace == null ? hbase.freshNamespace("serve") : namespace;
        layout = new TableLayout(cube, ns);
        if (namespace == null) {
            new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        }
        EventParser parser = new EventParser(cube, clock, Duration.ofDays(7), hasher);
        agg = Aggregator.start(hbase.connection(), layout, parser,
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "serve-test", "flush.interval.ms", "60000")),
                clock, TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults(), TRUST);
        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, clock);
        serving = ServingRoutes.create(hbase.connection(), layout, hasher, ProfileConfig.defaults(),
                ServeConfig.of(merged(Map.of("serve.registry.refresh.ms", "100"), serveSettings)), clock, metrics,
                io.adreport.schema.trust.BeaconSigner.of(TRUST, clock));
        api = ReportApi.create(deps, Stream.concat(CampaignRoutes.create(deps.connection(), deps.layout(), deps.days(), deps.clock(),
                PacingRates.NONE).stream(), serving.routes().stream()).toList()).start("127.0.0.1", 0);
        base = "http://127.0.0.1:" + api.port();
        analyst = deps.keys().create("analyst");
        adserver = deps.keys().create("adserver");
        adv1 = deps.keys().create("advertiser:adv1");
        adv2 = deps.keys().create("advertiser:adv2");
    }

    private static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
        Map<String, String> out = new java.util.HashMap<>(a);
        out.putAll(b);
        return out;
    }

    @Override
    public void close() {
        api.stop();
        serving.close();
        agg.close();
    }

    /** The check's answer for one campaign: {@code allowed}, {@code capped <window> <count>/<max>} or the reason. */
    String answer(String device, String campaign, Instant now) throws Exception {
        clock.set(now);
        HttpResponse<String> r = check(adserver, "{\"device\": \"" + device + "\", \"campaigns\": [\"" + campaign + "\"]}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode a = JSON.readTree(r.body()).path("campaigns").get(0);
        if (a.path("allowed").asBoolean()) {
            return "allowed";
        }
        String reason = a.path("reason").asText();
        return reason.equals("capped") ? "capped " + a.path("window").asText() + " " + a.path("count").asInt() + "/" + a.path("max").asInt()
                : reason;
    }

    static String impression(String id, Instant ts, String device, String advertiser, String campaign) {
        return "{\"type\":\"impression\",\"id\":\"" + id + "\",\"ts\":\"" + ts + "\",\"device\":\"" + device + "\",\"advertiser\":\""
                + advertiser + "\",\"campaign\":\"" + campaign + "\",\"creative\":\"cr\",\"publisher\":\"p\",\"zone\":\"z\","
                + "\"country\":\"US\",\"deviceType\":\"phone\",\"costMicros\":1000}";
    }

    HttpResponse<String> ingest(String event) throws Exception {
        return ingest(List.of(event));
    }

    /** Posts {@code events} as one JSON array to the aggregator. */
    HttpResponse<String> ingest(List<String> events) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofString("[" + String.join(",", events) + "]")).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> check(String key, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/serve/check")).header("Authorization", "Bearer " + key)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> put(String path, String key, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key)
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
