package io.adreport.reconcile;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The test oracle: counts events of the ads cube into counter cells by rules written out here,
 * independently of {@code CounterFanout}. Only row keys come from the one key codec.
 */
final class Recount {
    /** A test event: {@code impressionId} for clicks and conversions, dimensions for impressions. */
    record Ev(String type, String id, Instant ts, Map<String, String> dims, long cost, long value, String impressionId) {
        LocalDate day() {
            return LocalDate.ofInstant(ts, ZoneOffset.UTC);
        }
    }

    /** One counter cell: rollup, row key (hex) and metric column. */
    record Cell(String rollup, String rowHex, String metric) {
    }

    /** Rollups of the ads cube and their key dimensions, written out independently. */
    static final Map<String, List<String>> ROLLUPS = new LinkedHashMap<>();

    static {
        ROLLUPS.put("network", List.of());
        ROLLUPS.put("advertiser", List.of("advertiser"));
        ROLLUPS.put("campaign", List.of("advertiser", "campaign"));
        ROLLUPS.put("creative", List.of("advertiser", "campaign", "creative"));
        ROLLUPS.put("country", List.of("advertiser", "country"));
        ROLLUPS.put("publisher", List.of("publisher"));
        ROLLUPS.put("zone", List.of("publisher", "zone"));
        ROLLUPS.put("device_type", List.of("advertiser", "deviceType"));
    }

    private static final int[] WIDTHS = {15, 60, 1440};
    private static final Granularity[] GRANULARITIES = {Granularity.MINUTES_15, Granularity.HOUR, Granularity.DAY};

    private final Cube cube;
    private final RowKeyCodec keys;

    Recount(Cube cube) {
        this.cube = cube;
        this.keys = new RowKeyCodec(cube);
    }

    /**
     * Adds the cells of {@code e} to {@code into}. {@code impressionDims}: for clicks and
     * conversions, the dimensions of their impression, or null when it is unknown.
     */
    void count(Ev e, Map<String, String> impressionDims, Map<Cell, Long> into) {
        Map<String, Long> metrics = new LinkedHashMap<>();
        Map<String, String> dims;
        boolean networkOnly = false;
        switch (e.type()) {
            case "impression" -> {
                metrics.put("impressions", 1L);
                metrics.put("spendMicros", e.cost());
                dims = e.dims();
            }
            case "click" -> {
                metrics.put("clicks", 1L);
                if (impressionDims == null) {
                    metrics.put("unattributedClicks", 1L);
                    networkOnly = true;
                }
                dims = impressionDims == null ? Map.of() : impressionDims;
            }
            case "conversion" -> {
                metrics.put("conversions", 1L);
                metrics.put("conversionValueMicros", e.value());
                if (impressionDims == null) {
                    metrics.put("unattributedConversions", 1L);
                    networkOnly = true;
                }
                dims = impressionDims == null ? Map.of() : impressionDims;
            }
            default -> throw new IllegalArgumentException(e.type());
        }
        long minute = e.ts().getEpochSecond() / 60;
        for (Map.Entry<String, List<String>> r : ROLLUPS.entrySet()) {
            if (networkOnly && !r.getValue().isEmpty()) {
                continue;
            }
            List<String> values = new ArrayList<>();
            for (String d : r.getValue()) {
                values.add(dims.getOrDefault(d, ""));
            }
            for (int g = 0; g < WIDTHS.length; g++) {
                long bucket = minute - minute % WIDTHS[g];
                String row = hex(keys.counterKey(cube.rollup(r.getKey()).orElseThrow(), GRANULARITIES[g], bucket, values));
                for (Map.Entry<String, Long> m : metrics.entrySet()) {
                    if (m.getValue() != 0) {
                        into.merge(new Cell(r.getKey(), row, m.getKey()), m.getValue(), Long::sum);
                    }
                }
            }
        }
    }

    /**
     * The exact cells of every event in {@code events}: clicks and conversions are attributed when
     * their impression is among {@code events} and lies on their day or the two days before.
     */
    Map<Cell, Long> exact(List<Ev> events) {
        return exact(events, null);
    }

    /** As {@link #exact(List)}, counting only the events of {@code day} (all when null). */
    Map<Cell, Long> exact(List<Ev> events, LocalDate day) {
        Map<String, Ev> impressions = new HashMap<>();
        for (Ev e : events) {
            if (e.type().equals("impression")) {
                impressions.put(e.id(), e);
            }
        }
        Map<Cell, Long> out = new HashMap<>();
        for (Ev e : events) {
            if (day != null && !e.day().equals(day)) {
                continue;
            }
            Map<String, String> dims = null;
            if (e.impressionId() != null) {
                Ev imp = impressions.get(e.impressionId());
                if (imp != null && !imp.day().isAfter(e.day()) && !imp.day().isBefore(e.day().minusDays(2))) {
                    dims = imp.dims();
                }
            }
            count(e, dims, out);
        }
        return out;
    }

    static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }
}
