package io.adreport.report;

import java.time.Instant;
import java.util.Map;

/**
 * An event whose counters a test writes and then expects back. Counting rules here are the
 * test's own (impressions count and sum their cost, clicks count, conversions count and sum
 * their value), written without the production fan-out so that they check it.
 */
public record KnownEvent(String type, Instant ts, Map<String, String> dims, long costMicros, long valueMicros) {
    public KnownEvent {
        dims = Map.copyOf(dims);
    }

    public static KnownEvent impression(Instant ts, Map<String, String> dims, long cost) {
        return new KnownEvent("impression", ts, dims, cost, 0);
    }

    public static KnownEvent click(Instant ts, Map<String, String> dims) {
        return new KnownEvent("click", ts, dims, 0, 0);
    }

    /** Metric deltas of this event, by metric name. */
    public Map<String, Long> deltas() {
        return switch (type) {
            case "impression" -> costMicros == 0 ? Map.of("impressions", 1L) : Map.of("impressions", 1L, "spendMicros", costMicros);
            case "click" -> Map.of("clicks", 1L);
            case "conversion" -> valueMicros == 0 ? Map.of("conversions", 1L)
                    : Map.of("conversions", 1L, "conversionValueMicros", valueMicros);
            default -> throw new IllegalArgumentException(type);
        };
    }

    public String dim(String name) {
        return dims.getOrDefault(name, "");
    }
}
