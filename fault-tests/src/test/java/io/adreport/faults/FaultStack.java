package io.adreport.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.RawKey;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * The real aggregator and report API (ports 0) over a fresh namespace of the shared mini cluster,
 * plus the readers a fault test checks with: the raw table's identities, the report API's
 * totals, and the nightly job.
 *
 * <p>Time: the clock runs at real speed but reads 12:00 UTC of the real day at start; the load
 * sends events of yesterday (a closed day, late but inside the accept window), so one reconcile
 * of yesterday covers everything a test sent.
 */
final class FaultStack implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final MiniHBase hbase;
    final Cube cube;
    final TableLayout layout;
    final Clock clock;
    final LocalDate day;
    final Aggregator aggregator;
    final Javalin api;
    final String analystKey;

    private FaultStack(MiniHBase hbase, Cube cube, TableLayout layout, Clock clock, Aggregator aggregator, Javalin api,
                       String analystKey) {
        this.hbase = hbase;
        this.cube = cube;
        this.layout = layout;
        this.clock = clock;
        this.day = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).minusDays(1);
        this.aggregator = aggregator;
        this.api = api;
        this.analystKey = analystKey;
    }

    /** Tables in a fresh namespace, an aggregator with {@code settings} over the defaults below, a report API. */
    static FaultStack start(MiniHBase hbase, String hint, Map<String, String> settings, Map<String, String> reportSettings)
            throws IOException {
        Instant real = Instant.now();
        LocalDate today = LocalDate.ofInstant(real, ZoneOffset.UTC);
        Clock clock = Clock.offset(Clock.systemUTC(), Duration.between(real, today.atTime(12, 0).toInstant(ZoneOffset.UTC)));
        Cube cube = smallCube();
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace(hint));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        EventParser parser = new EventParser(cube, clock, Duration.ofDays(7),
                new DeviceHasher("faults-device-secret-0123456789".getBytes(StandardCharsets.UTF_8)));
        Map<String, String> s = new HashMap<>(Map.of("ingest.port", "0", "aggregator.id", "faults-" + hint,
                "flush.interval.ms", "500", "dayclose.poll.ms", "200", "heartbeat.interval.ms", "500",
                "hbase.timeout.ms", "5000"));
        s.putAll(settings);
        Aggregator aggregator = Aggregator.start(hbase.connection(), layout, parser, AggregatorConfig.of(s), clock);
        Map<String, String> r = new HashMap<>(Map.of("report.query.timeout.ms", "5000"));
        r.putAll(reportSettings);
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, layout.namespace(), ReportConfig.of(r),
                new Metrics(), clock);
        String key = deps.keys().create("analyst");
        Javalin api = ReportApi.create(deps).start(0);
        return new FaultStack(hbase, cube, layout, clock, aggregator, api, key);
    }

    URI ingestUrl() {
        return URI.create("http://localhost:" + aggregator.port());
    }

    /** "type/id" of every raw row of the namespace, for the test's day. */
    Set<String> rawIdentities() throws IOException {
        RowKeyCodec codec = new RowKeyCodec(cube);
        Set<String> out = new HashSet<>();
        try (Table t = hbase.connection().getTable(layout.rawTable()); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result res : rs) {
                RawKey k = codec.parseRawKey(res.getRow());
                if (k.day().equals(day)) {
                    out.add(k.type() + "/" + k.id());
                }
            }
        }
        return out;
    }

    /** GET on the report API with the analyst key. */
    HttpResponse<String> get(String pathAndQuery) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + api.port() + pathAndQuery))
                    .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + analystKey).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The day's totals of a rollup by its first dimension ("" for network): group → metric → value. */
    Map<String, Map<String, Long>> totals(String rollup, String groupBy) throws IOException {
        String q = "/v1/reports/" + rollup + "?from=" + day + "&to=" + day.plusDays(1)
                + "&granularity=day&metrics=impressions,clicks,spendMicros,unattributedClicks"
                + (groupBy == null ? "" : "&groupBy=" + groupBy);
        HttpResponse<String> r = get(q);
        if (r.statusCode() != 200) {
            throw new IllegalStateException("report " + q + " answered " + r.statusCode() + ": " + r.body());
        }
        Map<String, Map<String, Long>> out = new TreeMap<>();
        for (JsonNode row : JSON.readTree(r.body()).get("rows")) {
            JsonNode dims = row.get("dimensions"); // an object (name → value) or an array of values
            String group = dims.size() == 0 ? "" : dims.elements().next().asText();
            Map<String, Long> m = out.computeIfAbsent(group, g -> new TreeMap<>());
            row.get("metrics").fields().forEachRemaining(e -> {
                if (e.getValue().isNumber() && e.getValue().asLong() != 0) {
                    m.merge(e.getKey(), e.getValue().asLong(), Long::sum);
                }
            });
        }
        out.values().removeIf(Map::isEmpty);
        return out;
    }

    /** The nightly job for the test's day, in this JVM (MapReduce local runner). */
    void reconcile() throws Exception {
        ReconcileConfig config = ReconcileConfig.of(Map.of("reconcile.splits", "2", "reconcile.grace.ms", "20000",
                "reconcile.poll.ms", "100", "reconcile.tmp.dir", "target/reconcile-tmp"));
        new Reconciler(hbase.configuration(), hbase.connection(), layout, config, clock).reconcile(day, false, null);
    }

    @Override
    public void close() {
        api.stop();
        aggregator.close();
    }

    /** The default ads cube with 4 salt buckets: the same code paths, a quarter of the regions. */
    private static Cube smallCube() {
        try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return CubeLoader.parse("ads.yaml with 4 buckets", yaml.replace("Buckets: 16", "Buckets: 4"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
