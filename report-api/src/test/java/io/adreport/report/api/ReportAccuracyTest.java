package io.adreport.report.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.report.Recount;
import io.adreport.report.ReportCheck;
import io.adreport.report.ReportFixture;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Reports through real HTTP equal an independent recount of the known events: every
 * granularity, time zones with whole, half and three-quarter hour offsets and a DST change,
 * groupBy, filters, top-N with ties, derived metrics, and CSV equal to JSON.
 */
@ExtendWith(HBaseExtension.class)
class ReportAccuracyTest {
    private static ReportFixture fx;

    @BeforeAll
    static void start(MiniHBase hbase) {
        fx = ReportFixture.get(hbase);
    }

    private JsonNode ok(ReportCheck c) {
        ReportFixture.Reply r = fx.get(c.path(null), fx.analystKey);
        assertEquals(200, r.status(), c.path(null) + " -> " + r.body());
        return r.json();
    }

    private int check(ReportCheck c) {
        return c.assertMatches(ok(c), c.expected(fx.events(), Map.of()));
    }

    @Test
    void every_granularity_in_every_zone_equals_the_recount() {
        for (String tz : List.of("UTC", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu")) {
            for (String g : List.of("hour", "day", "month", "all")) {
                check(ReportCheck.of("network", "2026-10-31", "2026-11-03").tz(tz).granularity(g));
                check(ReportCheck.of("campaign", "2026-10-31", "2026-11-03").tz(tz).granularity(g)
                        .filter("advertiser", "adv1").groupBy("campaign"));
            }
        }
    }

    @Test
    void new_york_dst_end_day_has_25_hours_and_the_repeated_hour_twice() {
        ReportCheck c = ReportCheck.of("network", "2026-11-01", "2026-11-02").tz("America/New_York").granularity("hour");
        JsonNode body = ok(c);
        assertEquals(25, check(c));
        List<String> times = new ArrayList<>();
        body.get("rows").forEach(r -> times.add(r.get("time").asText()));
        assertTrue(times.contains("2026-11-01T01:00:00-04:00") && times.contains("2026-11-01T01:00:00-05:00"), times.toString());
        // the day itself, cut in New York, is one 25-hour bucket
        assertEquals(1, check(ReportCheck.of("network", "2026-11-01", "2026-11-02").tz("America/New_York").granularity("day")));
    }

    @Test
    void half_and_three_quarter_hour_zones_cut_hours_at_their_own_offsets() {
        ReportCheck kolkata = ReportCheck.of("country", "2026-11-01", "2026-11-02").tz("Asia/Kolkata").granularity("hour")
                .groupBy("advertiser", "country");
        check(kolkata);
        assertEquals("2026-11-01T00:00:00+05:30", ok(kolkata).get("rows").get(0).get("time").asText());
        check(ReportCheck.of("publisher", "2026-10-31T18:15:00Z", "2026-11-02T06:45:00+05:45").tz("Asia/Kathmandu")
                .granularity("hour").groupBy("publisher"));
        check(ReportCheck.of("zone", "2026-10-31T10:30:00+05:30", "2026-11-02").tz("Asia/Kolkata").granularity("day")
                .filter("publisher", "pub2").groupBy("zone"));
    }

    @Test
    void every_rollup_breaks_down_by_every_dimension() {
        for (var r : fx.cube.rollups()) {
            check(ReportCheck.of(r.name(), "2026-10-31", "2026-11-03").granularity("all").groupBy(r.dimensions().toArray(String[]::new)));
            for (String d : r.dimensions()) {
                check(ReportCheck.of(r.name(), "2026-10-31", "2026-11-03").granularity("day").groupBy(d));
            }
        }
    }

    @Test
    void filters_on_leading_and_inner_dimensions_select_the_same_rows_as_the_recount() {
        check(ReportCheck.of("creative", "2026-10-31", "2026-11-03").granularity("all").filter("creative", "cr1").groupBy("advertiser"));
        check(ReportCheck.of("creative", "2026-10-31", "2026-11-03").granularity("day")
                .filter("advertiser", "adv2").filter("creative", "cr2").groupBy("campaign"));
        check(ReportCheck.of("country", "2026-10-31", "2026-11-03").granularity("hour").filter("country", "np"
                .toUpperCase()).groupBy("advertiser"));
        check(ReportCheck.of("device_type", "2026-10-31", "2026-11-03").granularity("all").filter("deviceType", "mobile"));
    }

    @Test
    void a_fully_fixed_series_over_48_hours_matches_hour_by_hour() {
        ReportCheck c = ReportCheck.of("creative", "2026-10-31T12:00:00Z", "2026-11-02T12:00:00Z").granularity("hour")
                .filter("advertiser", "adv1").filter("campaign", "adv1-c1").filter("creative", "cr1");
        assertEquals(48, check(c));
        // the same series in Kathmandu, where the planner reads 15-minute rows
        check(ReportCheck.of("creative", "2026-10-31T12:00:00Z", "2026-11-02T12:00:00Z").granularity("hour").tz("Asia/Kathmandu")
                .filter("advertiser", "adv1").filter("campaign", "adv1-c1").filter("creative", "cr1"));
    }

    @Test
    void top_n_is_exact_and_breaks_ties_by_dimension_value() {
        ReportCheck c = ReportCheck.of("campaign", "2026-11-01", "2026-11-02").granularity("all").groupBy("campaign")
                .filter("advertiser", "tie").metrics("impressions", "ctr").orderBy("-impressions").limit(3);
        check(c);
        List<String> names = new ArrayList<>();
        ok(c).get("rows").forEach(r -> names.add(r.get("dimensions").get("campaign").asText()));
        assertEquals(List.of("t-a", "t-b", "t-c"), names);
        check(ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("all").groupBy("advertiser", "campaign")
                .orderBy("-clicks").limit(4));
        check(ReportCheck.of("zone", "2026-10-31", "2026-11-03").granularity("day").groupBy("zone")
                .orderBy("ctr").limit(5));
        check(ReportCheck.of("country", "2026-10-31", "2026-11-03").granularity("hour").groupBy("country")
                .orderBy("-spendMicros").limit(7));
    }

    @Test
    void csv_has_the_same_columns_and_values_as_json() {
        List<ReportCheck> checks = List.of(
                ReportCheck.of("campaign", "2026-10-31", "2026-11-03").granularity("day").tz("Asia/Kolkata").groupBy("campaign"),
                ReportCheck.of("network", "2026-11-01", "2026-11-02").granularity("hour").tz("America/New_York"),
                ReportCheck.of("country", "2026-10-31", "2026-11-03").granularity("all").groupBy("country").orderBy("-ctr").limit(3));
        for (ReportCheck c : checks) {
            JsonNode json = ok(c);
            ReportFixture.Reply csv = fx.get(c.path("csv"), fx.analystKey);
            assertEquals(200, csv.status());
            assertTrue(csv.contentType().startsWith("text/csv"), csv.contentType());
            String[] lines = csv.body().split("\r\n");
            List<String> header = new ArrayList<>();
            if (!c.granularity.equals("all")) {
                header.add("time");
            }
            header.addAll(c.groupBy);
            header.addAll(c.metrics);
            assertEquals(String.join(",", header), lines[0]);
            assertEquals(json.get("rows").size() + 1, lines.length);
            for (int i = 0; i < json.get("rows").size(); i++) {
                JsonNode row = json.get("rows").get(i);
                List<String> cells = List.of(lines[i + 1].split(",", -1));
                int k = 0;
                if (!c.granularity.equals("all")) {
                    assertEquals(row.get("time").asText(), cells.get(k++));
                }
                for (String d : c.groupBy) {
                    assertEquals(row.get("dimensions").get(d).asText(), cells.get(k++));
                }
                for (String m : c.metrics) {
                    JsonNode v = row.get("metrics").get(m);
                    String cell = cells.get(k++);
                    if (v.isNull()) {
                        assertEquals("", cell, m);
                    } else if (v.isIntegralNumber()) {
                        assertEquals(v.asLong(), Long.parseLong(cell), m);
                    } else {
                        assertEquals(v.asDouble(), Double.parseDouble(cell), 0.0, m);
                    }
                }
            }
        }
    }

    @Test
    void derived_metrics_are_null_where_the_denominator_is_zero() {
        // Early hours of the range in Kathmandu lie before the data: zero impressions, ctr null.
        ReportCheck c = ReportCheck.of("network", "2026-10-30T18:15:00Z", "2026-10-31T00:00:00Z").granularity("hour")
                .tz("Asia/Kathmandu").metrics("impressions", "ctr", "ecpm", "cpc", "cvr");
        check(c);
        JsonNode first = ok(c).get("rows").get(0).get("metrics");
        assertTrue(first.get("ctr").isNull() && first.get("impressions").asLong() == 0);
        List<Recount.Row> rows = c.expected(fx.events(), Map.of());
        assertEquals(6, rows.size());
    }
}
