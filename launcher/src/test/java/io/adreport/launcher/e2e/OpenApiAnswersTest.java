package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.adreport.aggregator.Aggregator;
import io.adreport.api.client.ApiClient;
import io.adreport.api.client.api.CampaignsApi;
import io.adreport.api.client.api.ReportsApi;
import io.adreport.api.client.api.ServingApi;
import io.adreport.api.client.model.CampaignChange;
import io.adreport.api.client.model.CheckAnswer;
import io.adreport.api.client.model.CheckRequest;
import io.adreport.api.client.model.FrequencyCap;
import io.adreport.api.client.model.Report;
import io.adreport.api.client.model.ReportRow;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.campaigns.CampaignRoutes;
import io.adreport.http.ApiRoute;
import io.adreport.privacy.PrivacyConfig;
import io.adreport.privacy.PrivacyRoutes;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.ServeConfig;
import io.adreport.serving.ServingRoutes;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The API answers what its OpenAPI document says: the report API with every route the launcher
 * mounts (reports, reconcile, campaigns, zones, budgets, serving, privacy) on one namespace of the
 * shared mini cluster; every JSON operation of {@code /openapi.json} is called with a valid request
 * and its real answer (and the request body sent) is validated against the document's schema by an
 * independent JSON-schema validator (networknt, OpenAPI 3.0 dialect). The document's schemas allow
 * no property they do not name, so a field renamed in a handler but not in its record (or the
 * record beside a hand-written writer) turns this test red. The document is left in
 * {@code target/openapi.json} for {@code redocly lint}; its checked-in copy {@code docs/openapi.json}, from which module
 * {@code api-client} generates the Java client at build time, must be the same document, and that generated client reads a
 * report and runs a check here against the running API.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiAnswersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String DOC = "https://adreport.example/openapi.json";
    /** The checked-in copy the Java client (module api-client) is generated from at build time. */
    private static final Path CHECKED_IN = Path.of("..", "docs", "openapi.json");
    private static final Path SERVED = Path.of("target", "openapi.json");
    private static final byte[] SECRET = "0123456789abcdef-openapi".getBytes(StandardCharsets.UTF_8);

    private MutableClock clock;
    private Aggregator agg;
    private ServingRoutes serving;
    private PrivacyRoutes privacy;
    private Javalin api;
    private String base;
    private String analyst;
    private JsonNode doc;
    private SchemaRegistry schemas;
    private final Set<String> validated = new TreeSet<>();

    @BeforeAll
    void start(MiniHBase hbase) throws Exception {
        clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.HOURS));
        Cube cube = CubeLoader.defaultCube();
        String ns = hbase.freshNamespace("openapi");
        TableLayout layout = new TableLayout(cube, ns);
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        DeviceHasher hasher = new DeviceHasher(SECRET);
        agg = Aggregator.start(hbase.connection(), layout, new EventParser(cube, clock, Duration.ofDays(7), hasher),
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "openapi-test", "flush.interval.ms", "60000")),
                clock, TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults());
        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, clock);
        ProfileConfig profiles = ProfileConfig.defaults();
        // Exact answers even on a loaded machine: the deadline is tested elsewhere.
        serving = ServingRoutes.create(hbase.connection(), layout, hasher, profiles,
                ServeConfig.of(Map.of("serve.registry.refresh.ms", "100", "serve.deadline.ms", "5000")), clock, metrics);
        privacy = PrivacyRoutes.create(hbase.connection(), layout, hasher, new UnidentifiedDevices(hasher, profiles.placeholders()),
                PrivacyConfig.defaults(), clock, metrics);
        List<ApiRoute> extra = new ArrayList<>(CampaignRoutes.create(deps.connection(), layout, deps.days(), clock, serving.rates()));
        extra.addAll(serving.routes());
        extra.addAll(privacy.routes());
        api = ReportApi.create(deps, extra).start("127.0.0.1", 0);
        base = "http://127.0.0.1:" + api.port();
        analyst = deps.keys().create("analyst");

        // A reconciled day and today's live counters, so that both day states and real rows are answered.
        LocalDate yesterday = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).minusDays(1);
        deps.days().markClosing(yesterday);
        deps.days().markReconciled(yesterday, "{\"rows\": 0, \"cells\": {}}");

        String text = send("GET", "/openapi.json", null, null).body();
        doc = JSON.readTree(text);
        // The served document, keys sorted, for `redocly lint` (see http/README.md) and to refresh docs/openapi.json.
        Files.writeString(SERVED, JSON.writer().with(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).withDefaultPrettyPrinter()
                .writeValueAsString(JSON.readValue(text, Map.class)) + "\n");
        schemas = SchemaRegistry.withDefaultDialect(Dialects.getOpenApi30(), b -> b.schemas(Map.of(DOC, text)));
    }

    @AfterAll
    void stop() {
        if (api != null) {
            api.stop();
        }
        if (privacy != null) {
            privacy.close();
        }
        if (serving != null) {
            serving.close();
        }
        if (agg != null) {
            agg.close();
        }
    }

    @Test
    void every_json_operation_answers_what_the_document_says() throws Exception {
        Instant t = clock.instant().minus(Duration.ofMinutes(30));
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);

        call("GET", "/healthz", "/healthz", null, 200);
        call("GET", "/openapi.json", "/openapi.json", null, 200);
        call("GET", "/v1/rollups", "/v1/rollups", null, 200);

        // The campaign registry: created (201), then changed (200); zones likewise.
        String capped = "{\"status\": \"active\", \"start\": \"" + today.minusDays(1) + "\", \"end\": \"" + today.plusDays(30)
                + "\", \"frequencyCaps\": [{\"max\": 1, \"window\": \"1d\"}],"
                + " \"budget\": {\"dailyMicros\": 50000000, \"lifetimeMicros\": 1000000000, \"timeZone\": \"America/New_York\"}}";
        call("PUT", "/v1/campaigns/{advertiser}/{campaign}", "/v1/campaigns/adv1/c1", capped, 201);
        call("PUT", "/v1/campaigns/{advertiser}/{campaign}", "/v1/campaigns/adv1/c1", capped, 200);
        call("PUT", "/v1/campaigns/{advertiser}/{campaign}", "/v1/campaigns/adv1/c2", "{\"frequencyCaps\": []}", 201);
        call("GET", "/v1/campaigns/{advertiser}/{campaign}", "/v1/campaigns/adv1/c2", null, 200);
        call("GET", "/v1/campaigns", "/v1/campaigns?advertiser=adv1", null, 200);
        String zone = "{\"ads\": [{\"advertiser\": \"adv1\", \"campaign\": \"c1\", \"creative\": \"cr1\", \"ecpmMicros\": 2500000,"
                + " \"keywords\": [\"shoes\"]}, {\"advertiser\": \"adv1\", \"campaign\": \"c2\", \"creative\": \"cr2\", \"ecpmMicros\": 1000000}]}";
        call("PUT", "/v1/zones/{site}/{zone}", "/v1/zones/p1/z1", zone, 201);
        call("PUT", "/v1/zones/{site}/{zone}", "/v1/zones/p1/z1", zone, 200);
        call("GET", "/v1/zones/{site}/{zone}", "/v1/zones/p1/z1", null, 200);
        serving.registry().refresh();

        // Traffic: device d1 has seen c1 (capped at 1 a day), which also gives the report and the budget rows.
        HttpResponse<String> ingest = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofString("[{\"type\":\"impression\",\"id\":\"i1\",\"ts\":\"" + t + "\",\"device\":\"d1\","
                        + "\"advertiser\":\"adv1\",\"campaign\":\"c1\",\"creative\":\"cr1\",\"publisher\":\"p1\",\"zone\":\"z1\","
                        + "\"country\":\"US\",\"deviceType\":\"phone\",\"costMicros\":2500}]")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ingest.statusCode(), ingest.body());
        agg.flushNow();

        call("GET", "/v1/campaigns/{advertiser}/{campaign}/budget", "/v1/campaigns/adv1/c1/budget", null, 200);
        String range = "from=" + today.minusDays(1) + "&to=" + today.plusDays(1) + "&advertiser=adv1";
        JsonNode hourly = call("GET", "/v1/reports/{rollup}", "/v1/reports/campaign?" + range + "&granularity=hour", null, 200);
        assertTrue(hourly.get("rows").size() > 0, "a row to check: " + hourly);
        call("GET", "/v1/reports/{rollup}", "/v1/reports/campaign?" + range + "&granularity=all", null, 200);
        call("GET", "/v1/reconcile", "/v1/reconcile?from=" + today.minusDays(3) + "&to=" + today, null, 200);
        call("GET", "/v1/reconcile/{day}", "/v1/reconcile/" + today.minusDays(1), null, 200);

        // Serving: capped, allowed and unregistered verdicts in one check; two ads chosen.
        JsonNode check = call("POST", "/v1/serve/check", "/v1/serve/check",
                "{\"device\": \"d1\", \"campaigns\": [\"adv1/c1\", \"adv1/c2\", \"adv9/none\"]}", 200);
        assertEquals("capped", check.get("campaigns").get(0).path("reason").asText(), check.toString());
        JsonNode ad = call("POST", "/v1/serve/ad", "/v1/serve/ad",
                "{\"site\": \"p1\", \"zone\": \"z1\", \"device\": \"d2\", \"keywords\": [\"shoes\"], \"count\": 2, \"country\": \"US\"}", 200);
        assertEquals(2, ad.get("ads").size(), ad.toString());

        // Privacy: a deletion accepted (202) and followed.
        JsonNode accepted = call("POST", "/v1/privacy/deletions", "/v1/privacy/deletions", "{\"device\": \"d3\"}", 202);
        call("GET", "/v1/privacy/deletions/{id}", "/v1/privacy/deletions/" + accepted.get("id").asText(), null, 200);

        assertEquals(jsonOperations(), validated, "every JSON operation of the document is called and validated");
    }

    @Test
    void the_checked_in_document_is_the_served_one() throws Exception {
        assertEquals(doc, JSON.readTree(Files.readString(CHECKED_IN)), "docs/openapi.json (the generated client's source) is not the served"
                + " document; refresh it after this test with: cp launcher/target/openapi.json docs/openapi.json");
    }

    @Test
    void a_client_generated_from_the_document_reads_a_report_and_runs_a_check() throws Exception {
        ApiClient client = new ApiClient();
        client.updateBaseUri(base);
        client.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + analyst));
        new CampaignsApi(client).putV1CampaignsAdvertiserCampaign("gen1", "c1",
                new CampaignChange().addFrequencyCapsItem(new FrequencyCap().max(2).window("1d")));
        serving.registry().refresh();

        // Device g1 sees gen1/c1 twice (its cap), g2 once; the expected report is recounted from these events.
        Instant t = clock.instant().minus(Duration.ofMinutes(20));
        List<String> devices = List.of("g1", "g1", "g2");
        List<Long> costs = List.of(1_000L, 2_000L, 4_000L);
        StringBuilder events = new StringBuilder("[");
        for (int i = 0; i < devices.size(); i++) {
            events.append(i == 0 ? "" : ",").append("{\"type\":\"impression\",\"id\":\"gen-").append(i).append("\",\"ts\":\"").append(t)
                    .append("\",\"device\":\"").append(devices.get(i)).append("\",\"advertiser\":\"gen1\",\"campaign\":\"c1\",")
                    .append("\"creative\":\"cr1\",\"publisher\":\"p1\",\"zone\":\"z1\",\"country\":\"US\",\"deviceType\":\"phone\",")
                    .append("\"costMicros\":").append(costs.get(i)).append('}');
        }
        HttpResponse<String> ingest = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agg.port() + "/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofString(events.append(']').toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ingest.statusCode(), ingest.body());
        agg.flushNow();

        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        Report report = new ReportsApi(client).getV1ReportsRollup("campaign", today.minusDays(1).toString(), today.plusDays(1).toString(),
                "all", null, "impressions,spendMicros", "advertiser,campaign", null, null, null, "gen1", null, null, null, null, null, null);
        assertEquals(1, report.getRows().size(), report.toString());
        ReportRow row = report.getRows().get(0);
        assertEquals(Map.of("advertiser", "gen1", "campaign", "c1"), row.getDimensions());
        assertEquals(devices.size(), row.getMetrics().get("impressions").intValueExact());
        assertEquals(costs.stream().mapToLong(Long::longValue).sum(), row.getMetrics().get("spendMicros").longValueExact());

        CheckAnswer g1 = new ServingApi(client).postV1ServeCheck(new CheckRequest().device("g1").addCampaignsItem("gen1/c1"));
        assertEquals(false, g1.getCampaigns().get(0).getAllowed(), g1.toString());
        assertEquals("capped", g1.getCampaigns().get(0).getReason(), g1.toString());
        CheckAnswer g2 = new ServingApi(client).postV1ServeCheck(new CheckRequest().device("g2").addCampaignsItem("gen1/c1"));
        assertEquals(true, g2.getCampaigns().get(0).getAllowed(), g2.toString());
    }

    /** Calls {@code url} as {@code operation} of the document, asserts the status, validates the body sent and the answer. */
    private JsonNode call(String method, String operation, String url, String body, int status) throws Exception {
        JsonNode op = doc.get("paths").get(operation).get(method.toLowerCase(java.util.Locale.ROOT));
        String key = method + " " + operation;
        if (body != null) {
            assertValid(key + " request", op.get("requestBody").get("content").get("application/json").get("schema"), JSON.readTree(body));
        }
        HttpResponse<String> r = send(method, url, body, analyst);
        assertEquals(status, r.statusCode(), key + ": " + r.body());
        JsonNode answer = JSON.readTree(r.body());
        JsonNode schema = op.get("responses").get(Integer.toString(status)).get("content").get("application/json").get("schema");
        assertValid(key + " " + status, schema, answer);
        validated.add(key);
        return answer;
    }

    private void assertValid(String what, JsonNode schemaNode, JsonNode instance) {
        Schema schema = schemaNode.has("$ref")
                ? schemas.getSchema(SchemaLocation.of(DOC + schemaNode.get("$ref").asText()))
                : schemas.getSchema(schemaNode);
        List<Error> errors = schema.validate(instance);
        assertTrue(errors.isEmpty(), what + " breaks the document: " + errors.stream().map(Error::toString).toList() + " in " + instance);
    }

    /** {@code METHOD /path} of every operation that answers JSON with a schema. */
    private Set<String> jsonOperations() {
        Set<String> out = new TreeSet<>();
        doc.get("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op ->
                op.getValue().get("responses").fields().forEachRemaining(resp -> {
                    if (resp.getKey().startsWith("2") && resp.getValue().path("content").path("application/json").has("schema")) {
                        out.add(op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
                    }
                })));
        return out;
    }

    private HttpResponse<String> send(String method, String path, String body, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
