package io.adreport.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/** A report request built by a test, and its comparison with the {@link Recount}. */
public final class ReportCheck {
    public String rollup;
    public String from;
    public String to;
    public String granularity = "day";
    public String tz = "UTC";
    public List<String> metrics = List.of("impressions", "clicks", "conversions", "spendMicros",
            "conversionValueMicros", "ctr", "ecpm", "cpc", "cvr");
    public Map<String, String> filters = new LinkedHashMap<>();
    public List<String> groupBy = List.of();
    public String orderBy;
    public Integer limit;

    public static ReportCheck of(String rollup, String from, String to) {
        ReportCheck c = new ReportCheck();
        c.rollup = rollup;
        c.from = from;
        c.to = to;
        return c;
    }

    public ReportCheck granularity(String g) {
        granularity = g;
        return this;
    }

    public ReportCheck tz(String zone) {
        tz = zone;
        return this;
    }

    public ReportCheck metrics(String... m) {
        metrics = List.of(m);
        return this;
    }

    public ReportCheck filter(String dim, String value) {
        filters.put(dim, value);
        return this;
    }

    public ReportCheck groupBy(String... dims) {
        groupBy = List.of(dims);
        return this;
    }

    public ReportCheck orderBy(String o) {
        orderBy = o;
        return this;
    }

    public ReportCheck limit(int n) {
        limit = n;
        return this;
    }

    public String path(String format) {
        StringJoiner q = new StringJoiner("&");
        q.add("from=" + ReportFixture.enc(from));
        q.add("to=" + ReportFixture.enc(to));
        q.add("granularity=" + granularity);
        q.add("tz=" + ReportFixture.enc(tz));
        q.add("metrics=" + String.join(",", metrics));
        filters.forEach((k, v) -> q.add(k + "=" + ReportFixture.enc(v)));
        if (!groupBy.isEmpty()) {
            q.add("groupBy=" + String.join(",", groupBy));
        }
        if (orderBy != null) {
            q.add("orderBy=" + ReportFixture.enc(orderBy));
        }
        if (limit != null) {
            q.add("limit=" + limit);
        }
        if (format != null) {
            q.add("format=" + format);
        }
        return "/v1/reports/" + rollup + "?" + q;
    }

    static Instant instant(String v, ZoneId zone) {
        return v.length() == 10 ? LocalDate.parse(v).atStartOfDay(zone).toInstant() : OffsetDateTime.parse(v).toInstant();
    }

    /** The rows the recount expects, with extra filters (a tenant's own id) applied. */
    public List<Recount.Row> expected(List<KnownEvent> events, Map<String, String> extraFilters) {
        ZoneId zone = ZoneId.of(tz);
        Map<String, String> f = new LinkedHashMap<>(filters);
        f.putAll(extraFilters);
        return Recount.report(events, instant(from, zone), instant(to, zone), granularity, zone, metrics, f, groupBy, orderBy, limit);
    }

    /** Asserts the JSON report equals the recount; returns the number of rows compared. */
    public int assertMatches(JsonNode body, List<Recount.Row> expected) {
        String where = rollup + " " + granularity + " " + tz + " groupBy=" + groupBy + " filters=" + filters + " orderBy=" + orderBy;
        assertNotNull(body, where);
        JsonNode rows = body.get("rows");
        assertEquals(expected.size(), rows.size(), "row count of " + where);
        for (int i = 0; i < expected.size(); i++) {
            Recount.Row e = expected.get(i);
            JsonNode a = rows.get(i);
            String at = where + " row " + i;
            if (e.time() == null) {
                assertFalse(a.has("time"), at + ": no time for granularity all");
            } else {
                assertEquals(e.time(), a.get("time").asText(), at + " time");
            }
            Map<String, String> dims = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = a.get("dimensions").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> d = it.next();
                dims.put(d.getKey(), d.getValue().asText());
            }
            assertEquals(e.dims(), dims, at + " dimensions");
            assertEquals(new ArrayList<>(e.metrics().keySet()), fieldNames(a.get("metrics")), at + " metric names");
            e.metrics().forEach((m, v) -> assertValue(v, a.get("metrics").get(m), at + " " + m));
        }
        return expected.size();
    }

    static void assertValue(Object expected, JsonNode actual, String at) {
        if (expected == null) {
            assertTrue(actual == null || actual.isNull(), at + ": expected null, got " + actual);
        } else if (expected instanceof Long l) {
            assertTrue(actual.isIntegralNumber(), at + ": expected an integer, got " + actual);
            assertEquals(l.longValue(), actual.asLong(), at);
        } else {
            double x = (Double) expected;
            assertEquals(x, actual.asDouble(), Math.max(1e-12, Math.abs(x) * 1e-12), at);
        }
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
