package io.adreport.report.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.adreport.report.Recount;
import io.adreport.report.ReportCheck;
import io.adreport.report.ReportFixture;
import io.adreport.schema.meta.ApiKeyStore;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code format=ndjson} and {@code format=csv} exports equal the independent recount row for row,
 * by every way the export makes rows complete (merged scans in one window or per output bucket,
 * summed windows, the engine for a top-N), keep a tenant to its rows, and carry the day marks.
 */
@ExtendWith(HBaseExtension.class)
class ExportTest {
    private static ReportFixture fx;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void start(MiniHBase hbase) {
        fx = ReportFixture.get(hbase);
    }

    /** A streamed answer: status, headers that matter, ndjson rows as a JSON {"rows": [...]}, the trailer line. */
    private record Export(int status, String body, String plan, String daysHeader, JsonNode rows, JsonNode trailer) {
    }

    private Export export(String path, String key) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(fx.baseUrl + path))
                .header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.ofString());
        ObjectNode doc = json.createObjectNode();
        ArrayNode rows = doc.putArray("rows");
        JsonNode trailer = null;
        if (r.statusCode() == 200 && path.contains("format=ndjson")) {
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/x-ndjson"));
            String[] lines = r.body().split("\n");
            for (int i = 0; i < lines.length; i++) {
                JsonNode n = json.readTree(lines[i]);
                if (i == lines.length - 1) {
                    trailer = n;
                } else {
                    assertTrue(n.has("metrics") && !n.has("days"), "row line " + i + ": " + lines[i]);
                    rows.add(n);
                }
            }
        }
        return new Export(r.statusCode(), r.body(), r.headers().firstValue("Adreport-Export").orElse(null),
                r.headers().firstValue("Adreport-Days").orElse(null), doc, trailer);
    }

    /** The recount in export order: time, then the dimension values in the rollup's dimension order. */
    private static List<Recount.Row> expectedInExportOrder(ReportCheck c, Map<String, String> extraFilters) {
        List<Recount.Row> rows = new ArrayList<>(c.expected(fx.events(), extraFilters));
        List<String> order = fx.cube.rollup(c.rollup).orElseThrow().dimensions().stream().filter(c.groupBy::contains).toList();
        Comparator<Recount.Row> cmp = Comparator.comparing(r -> r.time() == null ? Instant.MIN : ZonedDateTime.parse(r.time()).toInstant());
        for (String d : order) {
            cmp = cmp.thenComparing(r -> r.dims().get(d));
        }
        if (c.orderBy == null) {
            rows.sort(cmp);
        }
        return rows;
    }

    /** Checks ndjson and csv of {@code c} against the recount; returns the plan the server took. */
    private String assertExportMatches(ReportCheck c, String key, Map<String, String> extraFilters) throws Exception {
        List<Recount.Row> expected = expectedInExportOrder(c, extraFilters);
        Export nd = export(c.path("ndjson"), key);
        assertEquals(200, nd.status(), c.path("ndjson") + " -> " + nd.body());
        c.assertMatches(nd.rows(), expected);
        assertEquals(expected.size(), nd.trailer().get("rows").asInt(), "trailer row count");
        Export csv = export(c.path("csv"), key);
        assertEquals(200, csv.status(), csv.body());
        assertCsvMatches(c, csv.body(), expected);
        assertEquals(nd.plan(), csv.plan());
        return nd.plan();
    }

    private static void assertCsvMatches(ReportCheck c, String body, List<Recount.Row> expected) {
        String[] lines = body.split("\r\n");
        boolean withTime = !c.granularity.equals("all");
        List<String> header = new ArrayList<>();
        if (withTime) {
            header.add("time");
        }
        header.addAll(c.groupBy);
        header.addAll(c.metrics);
        assertEquals(String.join(",", header), lines[0]);
        assertEquals(expected.size() + 1, lines.length, "csv line count of " + c.path("csv"));
        for (int i = 0; i < expected.size(); i++) {
            Recount.Row e = expected.get(i);
            List<String> cells = List.of(lines[i + 1].split(",", -1));
            int k = 0;
            if (withTime) {
                assertEquals(e.time(), cells.get(k++), "csv row " + i);
            }
            for (String d : c.groupBy) {
                assertEquals(e.dims().get(d), cells.get(k++), "csv row " + i + " " + d);
            }
            for (String m : c.metrics) {
                Object v = e.metrics().get(m);
                String cell = cells.get(k++);
                if (v == null) {
                    assertEquals("", cell, "csv row " + i + " " + m);
                } else if (v instanceof Long l) {
                    assertEquals(l.longValue(), Long.parseLong(cell), "csv row " + i + " " + m);
                } else {
                    double x = (Double) v;
                    assertEquals(x, Double.parseDouble(cell), Math.max(1e-12, Math.abs(x) * 1e-12), "csv row " + i + " " + m);
                }
            }
        }
    }

    @Test
    void ndjson_and_csv_export_every_row_equal_to_the_recount() throws Exception {
        // one stored bucket per output bucket: one window, one merged scan per salt bucket
        assertEquals("merge", assertExportMatches(ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("day")
                .groupBy("advertiser", "campaign"), fx.analystKey, Map.of()));
        assertEquals("merge", assertExportMatches(ReportCheck.of("creative", "2026-10-31", "2026-11-03").granularity("hour")
                .groupBy("advertiser", "campaign", "creative"), fx.analystKey, Map.of()));
        // several stored buckets per output bucket: a window per bucket, scans per salt and stored bucket
        assertEquals("merge", assertExportMatches(ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("all")
                .groupBy("advertiser", "campaign"), fx.analystKey, Map.of()));
        assertEquals("merge", assertExportMatches(ReportCheck.of("country", "2026-10-31", "2026-11-03").granularity("day")
                .tz("America/New_York").groupBy("advertiser"), fx.analystKey, Map.of()));
        assertEquals("merge", assertExportMatches(ReportCheck.of("zone", "2026-10-31T10:30:00+05:30", "2026-11-02").granularity("hour")
                .tz("Asia/Kolkata").filter("publisher", "pub2").groupBy("zone"), fx.analystKey, Map.of()));
        // an inner filter, and no groupBy: every bucket, zeros included
        assertEquals("merge", assertExportMatches(ReportCheck.of("creative", "2026-10-31", "2026-11-03").granularity("hour")
                .filter("creative", "cr2").groupBy("advertiser", "campaign"), fx.analystKey, Map.of()));
        assertEquals("merge", assertExportMatches(ReportCheck.of("campaign", "2026-10-30", "2026-11-04").granularity("day")
                .filter("advertiser", "adv3"), fx.analystKey, Map.of()));
        // groups that lie under several leading values: summed per output bucket
        assertEquals("sum", assertExportMatches(ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("day")
                .tz("Asia/Kolkata").groupBy("campaign"), fx.analystKey, Map.of()));
        assertEquals("sum", assertExportMatches(ReportCheck.of("country", "2026-10-31", "2026-11-03").granularity("all")
                .groupBy("country").metrics("impressions", "ctr"), fx.analystKey, Map.of()));
        // groupBy in another order than the rollup's: still contiguous, rows in the rollup's order
        assertEquals("merge", assertExportMatches(ReportCheck.of("country", "2026-10-31", "2026-11-03").granularity("all")
                .groupBy("country", "advertiser").metrics("impressions", "ctr"), fx.analystKey, Map.of()));
        assertEquals("sum", assertExportMatches(ReportCheck.of("device_type", "2026-10-31", "2026-11-03").granularity("month")
                .groupBy("deviceType"), fx.analystKey, Map.of()));
    }

    @Test
    void a_top_n_or_one_series_is_answered_by_the_engine_in_the_export_format() throws Exception {
        assertEquals("engine", assertExportMatches(ReportCheck.of("campaign", "2026-11-01", "2026-11-02").granularity("all")
                .groupBy("campaign").filter("advertiser", "tie").metrics("impressions", "ctr").orderBy("-impressions").limit(3),
                fx.analystKey, Map.of()));
        assertEquals("engine", assertExportMatches(ReportCheck.of("zone", "2026-10-31", "2026-11-03").granularity("day")
                .groupBy("zone").orderBy("ctr").limit(5), fx.analystKey, Map.of()));
        assertEquals("engine", assertExportMatches(ReportCheck.of("network", "2026-11-01", "2026-11-02").granularity("hour")
                .tz("America/New_York"), fx.analystKey, Map.of()));
    }

    @Test
    void a_tenant_key_exports_only_its_own_rows() throws Exception {
        ReportCheck byCampaign = ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("all").groupBy("advertiser", "campaign");
        assertExportMatches(byCampaign, fx.adv1Key, Map.of("advertiser", "adv1"));
        Export nd = export(byCampaign.path("ndjson"), fx.adv1Key);
        assertFalse(nd.body().contains("adv2") || nd.body().contains("adv3") || nd.body().contains("tie"), nd.body());
        assertTrue(nd.rows().get("rows").size() > 0);
        // a breakdown that would be summed for an analyst is a merge for a tenant: its id is fixed
        assertEquals("merge", assertExportMatches(ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("day")
                .groupBy("campaign"), fx.adv2Key, Map.of("advertiser", "adv2")));
        assertExportMatches(ReportCheck.of("zone", "2026-10-31", "2026-11-03").granularity("hour").groupBy("zone"),
                fx.pub1Key, Map.of("publisher", "pub1"));
        for (String format : List.of("ndjson", "csv")) {
            for (String path : List.of(
                    "/v1/reports/campaign?from=2026-10-31&to=2026-11-03&advertiser=adv2&groupBy=campaign&format=" + format,
                    "/v1/reports/zone?from=2026-10-31&to=2026-11-03&groupBy=zone&format=" + format,
                    "/v1/reports/network?from=2026-10-31&to=2026-11-03&format=" + format)) {
                Export r = export(path, fx.adv1Key);
                assertEquals(403, r.status(), path + " -> " + r.body());
                assertFalse(r.body().contains("adv2-c") || r.body().contains("pub"), r.body());
            }
            assertEquals(401, export("/v1/reports/campaign?from=2026-10-31&to=2026-11-03&format=" + format, "ak_nope").status());
        }
    }

    @Test
    void every_answer_marks_its_days_live_or_reconciled() throws Exception {
        fx.deps.days().markClosing(LocalDate.parse("2026-11-02"));
        fx.deps.days().markReconciled(LocalDate.parse("2026-11-02"), "{\"eventsRead\":1}");
        ReportCheck c = ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("day").groupBy("advertiser", "campaign");
        JsonNode jsonDays = fx.get(c.path(null), fx.analystKey).json().get("days");
        assertEquals("reconciled", jsonDays.get("2026-11-02").get("status").asText());
        assertEquals("live", jsonDays.get("2026-11-01").get("status").asText());
        Export nd = export(c.path("ndjson"), fx.analystKey);
        assertEquals(jsonDays, nd.trailer().get("days"));
        String header = runs(jsonDays);
        assertEquals(header, nd.daysHeader());
        assertTrue(header.endsWith("2026-11-02=reconciled"), header);
        assertEquals(header, export(c.path("csv"), fx.analystKey).daysHeader());
        // the engine path (top-N) carries the same marks
        Export top = export(c.orderBy("-clicks").limit(2).path("ndjson"), fx.analystKey);
        assertEquals(jsonDays, top.trailer().get("days"));
        assertEquals(header, top.daysHeader());
    }

    /** The header the server should send: runs of consecutive days of one status. */
    private static String runs(JsonNode days) {
        List<String> out = new ArrayList<>();
        String first = null;
        String last = null;
        String status = null;
        for (var it = days.fields(); it.hasNext(); ) {
            var e = it.next();
            String s = e.getValue().get("status").asText();
            if (s.equals(status) && LocalDate.parse(e.getKey()).equals(LocalDate.parse(last).plusDays(1))) {
                last = e.getKey();
                continue;
            }
            if (status != null) {
                out.add(first + (first.equals(last) ? "" : ".." + last) + "=" + status);
            }
            first = e.getKey();
            last = e.getKey();
            status = s;
        }
        out.add(first + (first.equals(last) ? "" : ".." + last) + "=" + status);
        return String.join(", ", out);
    }

    @Test
    void counters_that_cannot_be_read_are_a_clean_503_before_the_first_byte() throws Exception {
        // the same keys and day marks, but counter tables in a namespace that does not exist
        ReportApi.Deps d = fx.deps;
        ReportApi.Deps missing = new ReportApi.Deps(d.cube(), new TableLayout(d.cube(), "adreport_missing"), d.connection(), d.days(),
                d.aggregators(), d.keys(), new Metrics(), d.clock(), d.config());
        Javalin app = ReportApi.create(missing).start("127.0.0.1", 0);
        try {
            for (String format : List.of("ndjson", "csv")) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port()
                        + "/v1/reports/campaign?from=2026-10-31&to=2026-11-03&granularity=day&groupBy=advertiser,campaign&format=" + format))
                        .header("Authorization", "Bearer " + fx.analystKey).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(503, r.statusCode(), format + " -> " + r.body());
                assertTrue(json.readTree(r.body()).get("error").asText().startsWith("counters are unavailable"), r.body());
                assertTrue(r.headers().firstValue("Adreport-Export").isEmpty(), "no export was started");
            }
        } finally {
            app.stop();
        }
    }

    /**
     * Regression (fault suite, HBase outage): a key lookup that could not read the meta table was
     * answered 500 "internal error", and with the connection's default timeout it first waited out
     * the whole outage. It is now a 503 naming HBase, within the report's query timeout.
     */
    @Test
    void a_meta_table_that_cannot_be_read_is_a_503_naming_hbase_not_a_500() throws Exception {
        ReportApi.Deps d = fx.deps;
        TableLayout missingMeta = new TableLayout(d.cube(), "adreport_missing");
        Duration timeout = d.config().queryTimeout();
        ReportApi.Deps missing = new ReportApi.Deps(d.cube(), d.layout(), d.connection(),
                new DayStatusStore(d.connection(), missingMeta, d.clock(), timeout),
                new HeartbeatStore(d.connection(), missingMeta, d.clock(), timeout),
                ReportApi.apiKeys(new ApiKeyStore(d.connection(), missingMeta, d.clock(), timeout), d.cube(), d.config(), d.clock()), new Metrics(), d.clock(), d.config());
        Javalin app = ReportApi.create(missing).start("127.0.0.1", 0);
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port()
                    + "/v1/reports/campaign?from=2026-10-31&to=2026-11-03&granularity=day"))
                    .header("Authorization", "Bearer " + fx.analystKey).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, r.statusCode(), r.body());
            assertTrue(json.readTree(r.body()).get("error").asText().startsWith("HBase unavailable, try again: "), r.body());
        } finally {
            app.stop();
        }
    }

    @Test
    void the_openapi_document_describes_the_export_formats() {
        JsonNode op = fx.get("/openapi.json", (String) null).json().get("paths").get("/v1/reports/{rollup}").get("get");
        List<String> formats = new ArrayList<>();
        for (JsonNode p : op.get("parameters")) {
            if (p.get("name").asText().equals("format")) {
                p.get("schema").get("enum").forEach(v -> formats.add(v.asText()));
                assertTrue(p.get("description").asText().contains("Adreport-Days"), p.toString());
            }
        }
        assertEquals(List.of("json", "csv", "ndjson"), formats);
        JsonNode content = op.get("responses").get("200").get("content");
        assertTrue(content.has("text/csv") && content.has("application/x-ndjson") && content.has("application/json"), content.toString());
    }

    @Test
    void a_bad_format_is_400_naming_the_parameter() throws Exception {
        Export r = export("/v1/reports/campaign?from=2026-10-31&to=2026-11-03&format=jsonl", fx.analystKey);
        assertEquals(400, r.status());
        JsonNode body = json.readTree(r.body());
        assertEquals("format", body.get("parameter").asText());
        assertTrue(body.get("error").asText().contains("json, csv or ndjson"), r.body());
        // a broken rule in another parameter is still a plain 400 before anything is streamed
        Export late = export("/v1/reports/campaign?from=2026-10-31T10:07:00Z&to=2026-11-03&format=ndjson", fx.analystKey);
        assertEquals(400, late.status());
        assertEquals("from", json.readTree(late.body()).get("parameter").asText());
    }
}
