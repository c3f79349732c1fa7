package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.client.cli.Args;
import io.adreport.launcher.cli.Context;
import io.adreport.launcher.cli.Settings;
import io.adreport.launcher.local.Services;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * The product as {@code bin/adreport} composes it ({@link Services}: the aggregator, the report
 * API with the campaign, serving and privacy routes) from settings, on a fresh namespace of the
 * shared mini cluster, on the real clock; spoken to only over HTTP. Keys of every role the edge
 * tests need, and the HTTP calls they make.
 */
final class EdgeStack implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final String SECRET = "0123456789abcdef-edge-secret";

    final MiniHBase hbase;
    final Context ctx;
    final Aggregator agg;
    final Javalin api;
    final String ingestBase;
    final String apiBase;
    final String analyst;
    final String adserver;
    final String privacy;
    final String ingestKey;
    final String advertiser;
    final String publisher;

    EdgeStack(MiniHBase hbase, Map<String, String> extra) throws Exception {
        this.hbase = hbase;
        Map<String, String> s = new LinkedHashMap<>(Map.of("data.dir", "target/edge-data", "hbase.namespace", hbase.freshNamespace("edge"),
                "device.hash.secret", SECRET, "ingest.port", "0", "report.port", "0", "aggregator.id", "edge",
                "flush.interval.ms", "60000", "serve.registry.refresh.ms", "100", "privacy.worker.interval.ms", "100",
                "serve.deadline.ms", "5000"));
        s.putAll(extra);
        List<String> argv = new ArrayList<>();
        s.forEach((k, v) -> {
            argv.add("--set");
            argv.add(k + "=" + v);
        });
        ctx = Context.from(Settings.from(Args.parse(argv, java.util.Set.of(), java.util.Set.of()), Map.of()));
        new SchemaApplier(ctx.layout()).apply(hbase.connection().getAdmin(), false);
        Clock clock = Clock.systemUTC();
        agg = Services.aggregator(ctx, hbase.connection(), new Metrics(), clock);
        ReportApi.Deps deps = Services.reportDeps(ctx, hbase.connection(), new Metrics(), clock);
        api = Services.reportApi(ctx, deps);
        ingestBase = "http://127.0.0.1:" + agg.port();
        apiBase = "http://127.0.0.1:" + api.port();
        analyst = deps.keys().create("analyst");
        adserver = deps.keys().create("adserver");
        privacy = deps.keys().create("privacy");
        ingestKey = deps.keys().create("ingest");
        advertiser = deps.keys().create("advertiser:adv1");
        publisher = deps.keys().create("publisher:site1");
    }

    @Override
    public void close() {
        api.stop();
        agg.close();
    }

    /** The device's keyed hash, computed here from the rule (trim; lower-case a UUID), not by the product. */
    static String expectedHash(String canonical) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
    }

    static LocalDate today() {
        return LocalDate.now(ZoneOffset.UTC);
    }

    HttpResponse<String> send(String method, String url, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> api(String method, String path, String key, String body) throws Exception {
        return send(method, apiBase + path, key, body);
    }

    JsonNode apiJson(String method, String path, String key, String body) throws Exception {
        HttpResponse<String> r = api(method, path, key, body);
        assertTrue(r.statusCode() / 100 == 2, method + " " + path + ": " + r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    /** Fires a beacon URL as a browser would. */
    HttpResponse<byte[]> fire(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The answer of {@code /v1/serve/check} for one campaign: allowed, or the reason (capped, ...). */
    String check(String device, String campaign) throws Exception {
        JsonNode a = apiJson("POST", "/v1/serve/check", adserver, "{\"device\": " + JSON.writeValueAsString(device)
                + ", \"campaigns\": [\"" + campaign + "\"]}");
        JsonNode c = a.path("campaigns").get(0);
        return c.path("allowed").asBoolean() ? "allowed" : c.path("reason").asText();
    }

    /** Raw table rows, as "type/id" (the raw row holds the event id in its key). */
    long rawRows() throws Exception {
        long n = 0;
        try (Table t = hbase.connection().getTable(ctx.layout().rawTable()); ResultScanner sc = t.getScanner(new Scan())) {
            for (Result ignored : sc) {
                n++;
            }
        }
        return n;
    }

    /** Today's impressions and spend of {@code campaign} in the campaign rollup (live counts included). */
    long[] campaignCounts(String campaign) throws Exception {
        JsonNode r = apiJson("GET", "/v1/reports/campaign?from=" + today() + "&to=" + today().plusDays(1)
                + "&granularity=all&groupBy=campaign&metrics=impressions,spendMicros", analyst, null);
        long[] out = new long[2];
        for (JsonNode row : r.path("rows")) {
            if (campaign.equals(row.path("dimensions").path("campaign").asText(row.path("campaign").asText()))) {
                out[0] += row.path("metrics").path("impressions").asLong();
                out[1] += row.path("metrics").path("spendMicros").asLong();
            }
        }
        return out;
    }

    static void await(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "within 60 s: " + what);
            Thread.sleep(100);
        }
    }

    static void assertGif(HttpResponse<byte[]> r) {
        assertEquals("image/gif", r.headers().firstValue("Content-Type").orElse(""));
        assertEquals("GIF", new String(r.body(), 0, 3, StandardCharsets.US_ASCII));
    }
}
