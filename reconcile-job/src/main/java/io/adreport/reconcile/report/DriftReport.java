package io.adreport.reconcile.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the reconcile job found and did for one UTC day, stored in the meta table with the day's
 * {@code reconciled} status and served as is by {@code GET /v1/reconcile/{day}}:
 * <pre>
 * {"day":"2026-11-28","status":"reconciled","startedAt":"2026-11-29T03:00:00Z",
 *  "finishedAt":"2026-11-29T03:00:07.5Z","durationMs":7500,"dryRun":false,
 *  "totals":{"eventsRead":..,"duplicates":..,"lateEvents":..,"unattributed":..,"malformed":..,
 *            "cellsChecked":..,"cellsCorrected":..,"cellsDeleted":..,"cellsBulkLoaded":..,"absoluteDrift":..,
 *            "maxCellDrift":..},
 *  "rollups":{"campaign":{"events":..,"cellsChecked":..,"cellsCorrected":..,"cellsDeleted":..,
 *                         "absoluteDrift":..,"maxCellDrift":..}, ...},
 *  "unacknowledged":["agg-2"]}
 * </pre>
 * Event figures (read, duplicates, late, unattributed, malformed) are properties of the day and
 * appear in the totals; cell figures appear per rollup and summed in the totals. Drift is
 * {@code |recount - stored|} per cell (a missing cell stores 0). {@code unacknowledged} lists
 * live aggregators that had not acknowledged the day's close when the grace period ended.
 * {@code cellsBulkLoaded} counts the corrected cells (written or deleted) that went by bulk load
 * instead of Puts/Deletes; a report stored before it existed reads as 0.
 *
 * @param status {@code reconciled} (corrections written) or {@code dry_run} (nothing written)
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record DriftReport(LocalDate day, String status, Instant startedAt, Instant finishedAt, long durationMs,
                          boolean dryRun, Totals totals, Map<String, RollupDrift> rollups, List<String> unacknowledged) {

    public static final String RECONCILED = "reconciled";
    public static final String DRY_RUN = "dry_run";

    public DriftReport {
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(finishedAt, "finishedAt");
        Objects.requireNonNull(totals, "totals");
        if (!status.equals(dryRun ? DRY_RUN : RECONCILED)) {
            throw new IllegalArgumentException("status must be " + (dryRun ? DRY_RUN : RECONCILED) + ", not " + status);
        }
        if (finishedAt.isBefore(startedAt) || durationMs < 0) {
            throw new IllegalArgumentException("finishedAt must not be before startedAt");
        }
        rollups = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(rollups));
        unacknowledged = List.copyOf(unacknowledged == null ? List.of() : unacknowledged);
    }

    /** Day-wide figures; the cell figures are the sums over the rollups. */
    public record Totals(long eventsRead, long duplicates, long lateEvents, long unattributed, long malformed,
                         long cellsChecked, long cellsCorrected, long cellsDeleted, long cellsBulkLoaded, long absoluteDrift,
                         long maxCellDrift) {
        public Totals {
            nonNegative(eventsRead, duplicates, lateEvents, unattributed, malformed, cellsChecked, cellsCorrected,
                    cellsDeleted, cellsBulkLoaded, absoluteDrift, maxCellDrift);
            cellFigures(cellsChecked, cellsCorrected, cellsDeleted, absoluteDrift, maxCellDrift);
            if (cellsBulkLoaded > cellsCorrected) {
                throw new IllegalArgumentException("bulk-loaded cells (" + cellsBulkLoaded + ") are among the corrected (" + cellsCorrected + ")");
            }
            if (lateEvents > eventsRead || unattributed > eventsRead) {
                throw new IllegalArgumentException("late and unattributed events are among the events read");
            }
        }
    }

    /**
     * One rollup's figures.
     *
     * @param events events counted in this rollup (unattributed join events reach only rollups
     *               without dimensions)
     */
    public record RollupDrift(long events, long cellsChecked, long cellsCorrected, long cellsDeleted,
                              long absoluteDrift, long maxCellDrift) {
        public static final RollupDrift ZERO = new RollupDrift(0, 0, 0, 0, 0, 0);

        public RollupDrift {
            nonNegative(events, cellsChecked, cellsCorrected, cellsDeleted, absoluteDrift, maxCellDrift);
            cellFigures(cellsChecked, cellsCorrected, cellsDeleted, absoluteDrift, maxCellDrift);
        }

        public RollupDrift plus(RollupDrift o) {
            return new RollupDrift(events + o.events, cellsChecked + o.cellsChecked, cellsCorrected + o.cellsCorrected,
                    cellsDeleted + o.cellsDeleted, absoluteDrift + o.absoluteDrift, Math.max(maxCellDrift, o.maxCellDrift));
        }
    }

    private static void nonNegative(long... values) {
        for (long v : values) {
            if (v < 0) {
                throw new IllegalArgumentException("figures must not be negative: " + v);
            }
        }
    }

    private static void cellFigures(long checked, long corrected, long deleted, long drift, long max) {
        if (corrected > checked || deleted > corrected || max > drift) {
            throw new IllegalArgumentException("inconsistent cell figures: checked " + checked + ", corrected " + corrected
                    + ", deleted " + deleted + ", drift " + drift + ", max " + max);
        }
    }

    /** The same report with the aggregators that did not acknowledge the close. */
    public DriftReport withUnacknowledged(List<String> ids) {
        return new DriftReport(day, status, startedAt, finishedAt, durationMs, dryRun, totals, rollups, ids);
    }

    // --- JSON ---------------------------------------------------------------------------------

    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(SerializationFeature.INDENT_OUTPUT)
            .registerModule(new SimpleModule("drift-report-time")
                    .addSerializer(Instant.class, ToStringSerializer.instance)
                    .addSerializer(LocalDate.class, ToStringSerializer.instance)
                    .addDeserializer(Instant.class, new JsonDeserializer<>() {
                        @Override
                        public Instant deserialize(JsonParser p, DeserializationContext c) throws IOException {
                            return Instant.parse(p.getValueAsString());
                        }
                    })
                    .addDeserializer(LocalDate.class, new JsonDeserializer<>() {
                        @Override
                        public LocalDate deserialize(JsonParser p, DeserializationContext c) throws IOException {
                            return LocalDate.parse(p.getValueAsString());
                        }
                    }));

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static DriftReport fromJson(String json) {
        try {
            return JSON.readValue(json, DriftReport.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a drift report: " + e.getOriginalMessage(), e);
        }
    }

    /** The report as a terminal table: the totals, then one line per rollup. */
    public String toTable() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("Reconcile %s: %s in %.1f s%s%n", day, status, durationMs / 1000.0,
                unacknowledged.isEmpty() ? "" : " (not acknowledged by " + String.join(", ", unacknowledged) + ")"));
        sb.append(String.format("events read %,d  duplicates %,d  late %,d  unattributed %,d  malformed %,d%n",
                totals.eventsRead(), totals.duplicates(), totals.lateEvents(), totals.unattributed(), totals.malformed()));
        String row = "%-16s %12s %14s %14s %14s %16s %14s%n";
        sb.append(String.format(row, "rollup", "events", "cells checked", "corrected", "deleted", "absolute drift", "max drift"));
        rollups.forEach((name, r) -> sb.append(String.format(row, name, n(r.events()), n(r.cellsChecked()),
                n(r.cellsCorrected()), n(r.cellsDeleted()), n(r.absoluteDrift()), n(r.maxCellDrift()))));
        sb.append(String.format(row, "total", "", n(totals.cellsChecked()), n(totals.cellsCorrected()),
                n(totals.cellsDeleted()), n(totals.absoluteDrift()), n(totals.maxCellDrift())));
        if (totals.cellsBulkLoaded() > 0) {
            sb.append(String.format("of the corrected cells, %,d written as HFiles and bulk-loaded%n", totals.cellsBulkLoaded()));
        }
        return sb.toString();
    }

    private static String n(long v) {
        return String.format("%,d", v);
    }
}
