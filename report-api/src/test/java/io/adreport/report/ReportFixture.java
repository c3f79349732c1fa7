package io.adreport.report;

import io.adreport.testkit.MutableClock;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import io.adreport.campaigns.CampaignRoutes;
import io.adreport.campaigns.budget.PacingRates;

/**
 * One report API per test JVM, over one namespace of the shared mini cluster, with a known data
 * set: 72 hours from 2026-10-31T00:00Z (America/New_York leaves DST on 2026-11-01), three
 * advertisers, three publishers, four countries, and a "tie" advertiser whose campaigns have
 * equal totals. Tests that add events go through {@link #write}, which also adds them to
 * {@link #events()}, so every test's expectations follow the data whatever the class order.
 */
public final class ReportFixture {
    public static final Instant START = Instant.parse("2026-10-31T00:00:00Z");
    public static final Instant END = Instant.parse("2026-11-03T00:00:00Z");
    private static ReportFixture instance;

    public final Cube cube = smallCube();
    public final MutableClock clock = new MutableClock(Instant.parse("2026-11-02T12:00:00Z"));
    public final Metrics metrics = new Metrics();
    public final ReportApi.Deps deps;
    public final TableLayout layout;
    public final Javalin app;
    public final String baseUrl;
    public final String analystKey;
    public final String adv1Key;
    public final String adv2Key;
    public final String pub1Key;
    private final CounterLoader loader;
    private final List<KnownEvent> events = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    private ReportFixture(MiniHBase hbase) throws IOException {
        String ns = hbase.freshNamespace("report");
        layout = new TableLayout(cube, ns);
        long t0 = System.nanoTime();
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        long t1 = System.nanoTime();
        deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, clock);
        loader = new CounterLoader(hbase.connection(), cube, layout);
        write(dataset());
        System.err.printf("fixture: tables %.1f s, counters %.1f s%n", (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
        analystKey = deps.keys().create("analyst");
        adv1Key = deps.keys().create("advertiser:adv1");
        adv2Key = deps.keys().create("advertiser:adv2");
        pub1Key = deps.keys().create("publisher:pub1");
        app = ReportApi.create(deps, // the dashboard's budget card reads the campaign routes
                CampaignRoutes.create(deps.connection(), deps.layout(), deps.days(), deps.clock(), PacingRates.NONE)).start("127.0.0.1", 0);
        baseUrl = "http://127.0.0.1:" + app.port();
        Runtime.getRuntime().addShutdownHook(new Thread(app::stop));
    }

    /**
     * The default ads cube with 4 salt buckets instead of 16: still several buckets to fan out
     * over and merge, at a quarter of the regions to create, which keeps the suite short on a two-core machine.
     */
    public static Cube smallCube() {
        // Parsed from text, not built in code: the reconcile job sends the cube to its tasks as its text.
        String ads = CubeLoader.defaultSource().text();
        return CubeLoader.parse("ads.yaml with 4 buckets", ads.replace("Buckets: 16", "Buckets: 4"));
    }

    public static synchronized ReportFixture get(MiniHBase hbase) {
        if (instance == null) {
            try {
                instance = new ReportFixture(hbase);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return instance;
    }

    public List<KnownEvent> events() {
        return List.copyOf(events);
    }

    /** Writes the events' counters and adds them to the known events. */
    public void write(List<KnownEvent> more) {
        try {
            loader.load(more);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        events.addAll(more);
    }

    static List<KnownEvent> dataset() {
        Random rnd = new Random(20261101);
        String[] countries = {"US", "DE", "IN", "NP"};
        String[] devices = {"mobile", "desktop"};
        List<KnownEvent> out = new ArrayList<>();
        long span = END.getEpochSecond() - START.getEpochSecond();
        for (int i = 0; i < 1500; i++) {
            String adv = "adv" + (1 + pick(rnd, 3));
            String pub = "pub" + (1 + pick(rnd, 3));
            Map<String, String> dims = Map.of("advertiser", adv, "campaign", adv + "-c" + (1 + rnd.nextInt(2)),
                    "creative", "cr" + (1 + rnd.nextInt(2)), "publisher", pub, "zone", pub + "-z" + (1 + rnd.nextInt(2)),
                    "country", countries[pick(rnd, 4)], "deviceType", devices[rnd.nextInt(2)]);
            Instant ts = START.plusSeconds((long) (rnd.nextDouble() * span));
            int kind = rnd.nextInt(100);
            if (kind < 70) {
                out.add(KnownEvent.impression(ts, dims, 100 + rnd.nextInt(4900)));
            } else if (kind < 95) {
                out.add(KnownEvent.click(ts, dims));
            } else {
                out.add(new KnownEvent("conversion", ts, dims, 0, 1_000 + rnd.nextInt(50_000)));
            }
        }
        // Ties for top-N: campaigns t-a, t-b, t-c and t-e have 5 impressions each, t-d has 3.
        Instant t = Instant.parse("2026-11-01T12:07:00Z");
        for (String c : List.of("t-e", "t-c", "t-a", "t-d", "t-b")) {
            int n = c.equals("t-d") ? 3 : 5;
            for (int k = 0; k < n; k++) {
                out.add(KnownEvent.impression(t.plusSeconds(k * 60L), Map.of("advertiser", "tie", "campaign", c,
                        "creative", "x", "publisher", "pub3", "zone", "pub3-z1", "country", "US", "deviceType", "mobile"), 1000));
            }
        }
        return out;
    }

    /** Skewed pick: the first values are more popular. */
    private static int pick(Random rnd, int n) {
        return Math.min(n - 1, (int) Math.floor(Math.pow(rnd.nextDouble(), 1.6) * n));
    }

    // --- HTTP ------------------------------------------------------------------------------

    /** A response: status, body text, and the body as JSON when it is JSON. */
    public record Reply(int status, String body, String contentType, JsonNode json) {
    }

    public Reply get(String pathAndQuery, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery)).GET();
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return send(b.build());
    }

    public Reply get(String pathAndQuery, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery)).GET();
        headers.forEach(b::header);
        return send(b.build());
    }

    private Reply send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            String type = r.headers().firstValue("Content-Type").orElse("");
            JsonNode node = type.startsWith("application/json") ? json.readTree(r.body()) : null;
            return new Reply(r.statusCode(), r.body(), type, node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static String enc(String v) {
        return URLEncoder.encode(v, StandardCharsets.UTF_8);
    }
}
