package io.adreport.report.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.report.ReportFixture;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Errors, day status, drift reports, health, metrics and the OpenAPI document. */
@ExtendWith(HBaseExtension.class)
class ApiContractTest {
    private static ReportFixture fx;
    private static final String BASE = "/v1/reports/campaign?from=2026-10-31&to=2026-11-02";

    @BeforeAll
    static void start(MiniHBase hbase) {
        fx = ReportFixture.get(hbase);
    }

    private void assertBad(String path, String parameter, String ruleFragment) {
        ReportFixture.Reply r = fx.get(path, fx.analystKey);
        assertEquals(400, r.status(), path + " -> " + r.body());
        assertEquals(parameter, r.json().get("parameter").asText(), r.body());
        String error = r.json().get("error").asText();
        assertTrue(error.startsWith(parameter + ": ") && error.contains(ruleFragment), error);
        assertFalse(r.body().contains("rows"), r.body());
    }

    @Test
    void bad_parameters_answer_400_naming_the_parameter_and_the_rule() {
        assertBad("/v1/reports/campaign?to=2026-11-02", "from", "is required");
        assertBad("/v1/reports/campaign?from=yesterday&to=2026-11-02", "from", "ISO-8601");
        assertBad("/v1/reports/campaign?from=2026-11-02&to=2026-11-01", "to", "after from");
        assertBad(BASE + "&tz=Mars/Olympus", "tz", "IANA");
        assertBad(BASE + "&granularity=week", "granularity", "hour, day, month, all");
        assertBad(BASE + "&metrics=impressions,bogus", "metrics", "comma list");
        assertBad(BASE + "&metrics=clicks,clicks", "metrics", "twice");
        assertBad(BASE + "&groupBy=zone", "groupBy", "dimensions of rollup campaign");
        assertBad(BASE + "&orderBy=-bogus", "orderBy", "requested metric");
        assertBad(BASE + "&limit=0", "limit", "1..");
        assertBad(BASE + "&limit=ten", "limit", "integer");
        assertBad(BASE + "&format=xml", "format", "json, csv or ndjson");
        assertBad(BASE + "&format=NDJSON", "format", "json, csv or ndjson");
        assertBad(BASE + "&zone=z1", "zone", "not a dimension of rollup campaign");
        assertBad(BASE + "&colour=red", "colour", "not a parameter");
        assertBad(BASE + "&advertiser=adv1&advertiser=adv2", "advertiser", "once");
        assertBad("/v1/reports/campaign?from=2026-10-31T10:07:00Z&to=2026-11-02", "from", "15-minute boundary");
        assertBad("/v1/reports/country?from=2026-10-31&to=2026-11-02&country=U1", "country", "must match");
        assertBad("/v1/reports/network?from=2026-10-31&to=2026-11-02&granularity=hour&tz=UTC&from=2026-10-30", "from", "once");
        assertBad("/v1/reports/network?from=2000-01-01&to=2026-11-02", "to", "at most");
        assertBad("/v1/reconcile/2026-13-01", "day", "YYYY-MM-DD");
    }

    @Test
    void an_unknown_rollup_is_404() {
        ReportFixture.Reply r = fx.get("/v1/reports/nope?from=2026-10-31&to=2026-11-02", fx.analystKey);
        assertEquals(404, r.status());
        assertTrue(r.json().get("error").asText().contains("unknown rollup"));
    }

    @Test
    void days_are_live_as_of_now_or_reconciled_as_of_the_recount() {
        Instant before = fx.clock.instant();
        fx.deps.days().markClosing(LocalDate.parse("2026-10-31"));
        fx.deps.days().markReconciled(LocalDate.parse("2026-10-31"), "{\"eventsRead\":1234,\"cellsCorrected\":2}");
        JsonNode days = fx.get(BASE, fx.analystKey).json().get("days");
        assertEquals(List.of("2026-10-31", "2026-11-01"), names(days));
        assertEquals("reconciled", days.get("2026-10-31").get("status").asText());
        assertEquals(before.toString(), days.get("2026-10-31").get("asOf").asText());
        assertEquals("live", days.get("2026-11-01").get("status").asText());
        assertEquals(fx.clock.instant().toString(), days.get("2026-11-01").get("asOf").asText());
        // a range cut in Kathmandu touches the UTC day before its first local day
        JsonNode kathmandu = fx.get("/v1/reports/network?from=2026-11-01&to=2026-11-02&tz=Asia/Kathmandu", fx.analystKey).json();
        assertEquals(List.of("2026-10-31", "2026-11-01"), names(kathmandu.get("days")));
    }

    @Test
    void the_drift_report_is_passed_through_and_a_day_never_reconciled_is_404() {
        fx.deps.days().markReconciled(LocalDate.parse("2026-10-30"), "{\"eventsRead\":77,\"perRollup\":{\"campaign\":{\"corrected\":3}}}");
        ReportFixture.Reply r = fx.get("/v1/reconcile/2026-10-30", fx.analystKey);
        assertEquals(200, r.status(), r.body());
        assertEquals("reconciled", r.json().get("status").asText());
        assertEquals(77, r.json().get("drift").get("eventsRead").asInt());
        assertEquals(3, r.json().get("drift").get("perRollup").get("campaign").get("corrected").asInt());
        assertEquals(404, fx.get("/v1/reconcile/2026-10-01", fx.analystKey).status());
        JsonNode list = fx.get("/v1/reconcile?from=2026-10-29&to=2026-11-02", fx.analystKey).json();
        assertTrue(list.get("days").size() >= 1);
        assertEquals(400, fx.get("/v1/reconcile?from=2026-01-01&to=2026-11-02", fx.analystKey).status());
    }

    @Test
    void healthz_metrics_and_openapi_need_no_key() {
        ReportFixture.Reply health = fx.get("/healthz", (String) null);
        assertEquals(200, health.status());
        assertEquals("ok", health.json().get("status").asText());
        fx.get(BASE, fx.analystKey);
        fx.get(BASE + "&limit=0", fx.analystKey);
        ReportFixture.Reply metrics = fx.get("/metrics", (String) null);
        assertEquals(200, metrics.status());
        assertTrue(metrics.contentType().startsWith("text/plain"), metrics.contentType());
        assertTrue(metrics.body().contains("adreport_report_requests_total{route=\"/v1/reports/{rollup}\",status=\"200\"}"), metrics.body());
        assertTrue(metrics.body().contains("adreport_report_requests_total{route=\"/v1/reports/{rollup}\",status=\"400\"}"));
        assertTrue(metrics.body().contains("adreport_report_request_seconds_bucket{route=\"/v1/reports/{rollup}\""));
        assertTrue(metrics.body().contains("adreport_report_hbase_read_seconds_count{kind=\"scan\"}"));
    }

    @Test
    void openapi_describes_every_route_and_report_parameter() {
        JsonNode doc = fx.get("/openapi.json", (String) null).json();
        assertEquals("3.0.3", doc.get("openapi").asText());
        for (String path : List.of("/healthz", "/metrics", "/openapi.json", "/v1/rollups", "/v1/reports/{rollup}",
                "/v1/reconcile", "/v1/reconcile/{day}")) {
            assertTrue(doc.get("paths").has(path), path);
        }
        List<String> params = new ArrayList<>();
        doc.get("paths").get("/v1/reports/{rollup}").get("get").get("parameters").forEach(p -> params.add(p.get("name").asText()));
        assertTrue(params.containsAll(List.of("rollup", "from", "to", "granularity", "tz", "metrics", "groupBy", "orderBy",
                "limit", "format", "advertiser", "campaign", "country", "deviceType")), params.toString());
        assertEquals("/", doc.get("servers").get(0).get("url").asText());
        assertEquals("bearer", doc.get("paths").get("/v1/rollups").get("get").get("security").get(0).fieldNames().next());
        assertTrue(doc.get("paths").get("/healthz").get("get").get("security").isEmpty(), "no key: an empty security list");
    }

    @Test
    void the_dashboard_and_echarts_are_served_from_the_jar() {
        ReportFixture.Reply page = fx.get("/", (String) null);
        assertEquals(200, page.status());
        assertTrue(page.body().contains("/webjars/echarts/5.3.1/dist/echarts.min.js"));
        assertEquals(200, fx.get("/webjars/echarts/5.3.1/dist/echarts.min.js", (String) null).status());
        assertEquals(200, fx.get("/app.js", (String) null).status());
    }

    private static List<String> names(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
