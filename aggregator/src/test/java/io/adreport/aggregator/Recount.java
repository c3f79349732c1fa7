package io.adreport.aggregator;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The test oracle: what every counter of the default ads cube must hold after the given phases
 * of beacons, computed from the beacons alone with rules written out here (it shares no code
 * with the aggregator or the schema's fan-out). Within a phase, requests run concurrently; a
 * click or conversion is attributed only to an impression stored in an earlier phase, within its
 * day or the two days before.
 */
final class Recount {
    /** Rollups of the ads cube: name → dimensions in key order. */
    static final Map<String, List<String>> ROLLUPS = Map.of(
            "network", List.of(),
            "advertiser", List.of("advertiser"),
            "campaign", List.of("advertiser", "campaign"),
            "creative", List.of("advertiser", "campaign", "creative"),
            "country", List.of("advertiser", "country"),
            "publisher", List.of("publisher"),
            "zone", List.of("publisher", "zone"),
            "device_type", List.of("advertiser", "deviceType"));
    static final Map<String, Integer> GRANULARITIES = Map.of("15m", 15, "hour", 60, "day", 1440);

    final Map<String, Long> expected = new HashMap<>();
    final Set<String> seen = new HashSet<>();
    final Map<String, Beacon> impressionsById = new HashMap<>();
    long unique;

    static String key(String rollup, String granularity, long bucketMinute, List<String> values, String metric) {
        return StoredCounters.key(rollup, granularity, bucketMinute, values, metric);
    }

    /** Applies one phase; returns the number of new (non-duplicate) beacons. */
    long phase(List<Beacon> sent) {
        List<Beacon> storedImpressions = new ArrayList<>();
        long fresh = 0;
        for (Beacon b : sent) {
            if (!seen.add(b.identity())) {
                continue;
            }
            fresh++;
            count(b);
            if (b.type().equals("impression")) {
                storedImpressions.add(b);
            }
        }
        storedImpressions.forEach(i -> impressionsById.putIfAbsent(i.id(), i));
        unique += fresh;
        return fresh;
    }

    private void count(Beacon b) {
        switch (b.type()) {
            case "impression" -> {
                add(b.dims(), b, "impressions", 1, false);
                add(b.dims(), b, "spendMicros", b.money(), false);
            }
            case "click", "conversion" -> {
                Beacon imp = impressionsById.get(b.impressionId());
                LocalDate day = LocalDate.ofInstant(b.ts(), ZoneOffset.UTC);
                boolean attributed = imp != null && !LocalDate.ofInstant(imp.ts(), ZoneOffset.UTC).isAfter(day)
                        && !LocalDate.ofInstant(imp.ts(), ZoneOffset.UTC).isBefore(day.minusDays(2));
                boolean click = b.type().equals("click");
                Map<String, String> dims = attributed ? imp.dims() : Map.of();
                add(dims, b, click ? "clicks" : "conversions", 1, !attributed);
                if (!click) {
                    add(dims, b, "conversionValueMicros", b.money(), !attributed);
                }
                if (!attributed) {
                    add(dims, b, click ? "unattributedClicks" : "unattributedConversions", 1, true);
                }
            }
            default -> throw new IllegalArgumentException(b.type());
        }
    }

    private void add(Map<String, String> dims, Beacon b, String metric, long delta, boolean networkOnly) {
        if (delta == 0) {
            return;
        }
        long minute = b.ts().getEpochSecond() / 60;
        for (var r : ROLLUPS.entrySet()) {
            if (networkOnly && !r.getValue().isEmpty()) {
                continue;
            }
            List<String> values = r.getValue().stream().map(d -> dims.getOrDefault(d, "")).toList();
            for (var g : GRANULARITIES.entrySet()) {
                long bucket = minute - Math.floorMod(minute, g.getValue());
                expected.merge(key(r.getKey(), g.getKey(), bucket, values, metric), delta, Long::sum);
            }
        }
    }
}
