package io.adreport.report.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import io.adreport.http.QueryException;

class QueryPlannerTest {
    private final Cube cube = CubeLoader.defaultCube();
    private final QueryPlanner planner = new QueryPlanner(cube, 10_000, 5_000);

    private ReportQuery query(String rollup, String zone, ReportGranularity g, Map<String, String> filters) {
        ZoneId z = ZoneId.of(zone);
        return new ReportQuery(cube.rollup(rollup).orElseThrow(), LocalDate.parse("2026-10-31").atStartOfDay(z).toInstant(),
                LocalDate.parse("2026-11-03").atStartOfDay(z).toInstant(), g, z, List.of("impressions"), filters, List.of(), null, null);
    }

    @Test
    void utc_days_read_day_rows() {
        assertEquals(Granularity.DAY, planner.plan(query("campaign", "UTC", ReportGranularity.DAY, Map.of())).stored());
        assertEquals(Granularity.DAY, planner.plan(query("campaign", "UTC", ReportGranularity.MONTH, Map.of())).stored());
        assertEquals(Granularity.DAY, planner.plan(query("campaign", "UTC", ReportGranularity.ALL, Map.of())).stored());
    }

    @Test
    void new_york_hours_and_days_read_hour_rows_across_the_dst_change() {
        assertEquals(Granularity.HOUR, planner.plan(query("campaign", "America/New_York", ReportGranularity.HOUR, Map.of())).stored());
        assertEquals(Granularity.HOUR, planner.plan(query("campaign", "America/New_York", ReportGranularity.DAY, Map.of())).stored());
    }

    @Test
    void kolkata_and_kathmandu_hours_read_15_minute_rows() {
        assertEquals(Granularity.MINUTES_15, planner.plan(query("campaign", "Asia/Kolkata", ReportGranularity.HOUR, Map.of())).stored());
        assertEquals(Granularity.MINUTES_15, planner.plan(query("campaign", "Asia/Kathmandu", ReportGranularity.DAY, Map.of())).stored());
    }

    @Test
    void a_fully_fixed_series_is_read_by_point_lookups_and_anything_else_by_scans() {
        QueryPlan fixed = planner.plan(query("campaign", "UTC", ReportGranularity.HOUR, Map.of("advertiser", "a", "campaign", "c")));
        assertTrue(fixed.pointLookup());
        assertEquals(Granularity.HOUR, fixed.stored());
        assertEquals(72, fixed.storedBuckets());
        assertFalse(planner.plan(query("campaign", "UTC", ReportGranularity.HOUR, Map.of("advertiser", "a"))).pointLookup());
        assertTrue(planner.plan(query("network", "UTC", ReportGranularity.HOUR, Map.of())).pointLookup());
        // too many keys for one multi-get: scan the series' one salt bucket instead
        QueryPlanner small = new QueryPlanner(cube, 10_000, 10);
        assertFalse(small.plan(query("network", "UTC", ReportGranularity.HOUR, Map.of())).pointLookup());
    }

    @Test
    void a_start_off_every_stored_boundary_is_refused_naming_from() {
        ZoneId utc = ZoneId.of("UTC");
        ReportQuery q = new ReportQuery(cube.rollup("network").orElseThrow(), Instant.parse("2026-11-01T10:07:00Z"),
                Instant.parse("2026-11-01T12:00:00Z"), ReportGranularity.HOUR, utc, List.of("impressions"), Map.of(), List.of(), null, null);
        assertEquals("from", assertThrows(QueryException.class, () -> planner.plan(q)).name());
    }

    @Test
    void too_many_buckets_are_refused_naming_granularity() {
        QueryPlanner tight = new QueryPlanner(cube, 24, 5_000);
        assertEquals("granularity", assertThrows(QueryException.class,
                () -> tight.plan(query("network", "UTC", ReportGranularity.HOUR, Map.of()))).name());
    }

    @Test
    void buckets_of_a_dst_day_in_new_york_are_25_hours() {
        ZoneId ny = ZoneId.of("America/New_York");
        TimeBuckets b = TimeBuckets.cut(LocalDate.parse("2026-11-01").atStartOfDay(ny).toInstant(),
                LocalDate.parse("2026-11-02").atStartOfDay(ny).toInstant(), ReportGranularity.HOUR, ny, 100);
        assertEquals(25, b.size());
        assertEquals(0, b.indexOf(b.start(0).getEpochSecond() / 60));
        assertEquals(24, b.indexOf(b.end().getEpochSecond() / 60 - 1));
        assertEquals(-1, b.indexOf(b.end().getEpochSecond() / 60));
    }
}
