package io.adreport.reconcile.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriftReportTest {
    private static DriftReport sample() {
        Map<String, DriftReport.RollupDrift> rollups = new LinkedHashMap<>();
        rollups.put("network", new DriftReport.RollupDrift(100, 30, 3, 1, 12, 7));
        rollups.put("campaign", new DriftReport.RollupDrift(97, 60, 2, 0, 5, 4));
        return new DriftReport(LocalDate.of(2026, 11, 28), DriftReport.RECONCILED, Instant.parse("2026-11-29T03:00:00Z"),
                Instant.parse("2026-11-29T03:00:07.500Z"), 7500, false,
                new DriftReport.Totals(100, 4, 2, 3, 1, 90, 5, 1, 0, 17, 7), rollups, List.of("agg-2"));
    }

    @Test
    void json_round_trip_gives_the_same_report() {
        DriftReport r = sample();
        assertEquals(r, DriftReport.fromJson(r.toJson()));
    }

    @Test
    void json_has_the_shape_the_report_api_serves() throws Exception {
        JsonNode j = new ObjectMapper().readTree(sample().toJson());
        List<String> fields = new ArrayList<>();
        j.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("day", "status", "startedAt", "finishedAt", "durationMs", "dryRun", "totals", "rollups", "unacknowledged"), fields);
        assertEquals("2026-11-28", j.get("day").asText());
        assertEquals("2026-11-29T03:00:07.500Z", j.get("finishedAt").asText());
        assertEquals(17, j.at("/totals/absoluteDrift").asLong());
        assertEquals(4, j.at("/rollups/campaign/maxCellDrift").asLong());
        assertEquals("network", j.get("rollups").fieldNames().next(), "rollups keep the cube's order");
    }

    @Test
    void inconsistent_figures_are_rejected() {
        assertThrows(IllegalArgumentException.class, () -> new DriftReport.RollupDrift(1, 2, 3, 0, 5, 1));
        assertThrows(IllegalArgumentException.class, () -> new DriftReport.RollupDrift(1, 2, 1, 0, 5, 9));
        assertThrows(IllegalArgumentException.class, () -> new DriftReport.Totals(-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new DriftReport(LocalDate.EPOCH, "reconciled", Instant.EPOCH,
                Instant.EPOCH, 0, true, new DriftReport.Totals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), Map.of(), List.of()));
    }

    @Test
    void rollup_figures_add_up() {
        DriftReport.RollupDrift a = new DriftReport.RollupDrift(1, 2, 1, 0, 5, 5);
        DriftReport.RollupDrift b = new DriftReport.RollupDrift(2, 3, 2, 1, 4, 3);
        assertEquals(new DriftReport.RollupDrift(3, 5, 3, 1, 9, 5), a.plus(b));
    }

    @Test
    void the_table_names_every_rollup() {
        String table = sample().toTable();
        assertTrue(table.contains("campaign") && table.contains("network") && table.contains("agg-2"), table);
    }
}
