package io.adreport.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The oracle: what the load sent and what the ingest acknowledged, and the counters that the
 * acknowledged events must add up to. Plain code of this suite, sharing nothing with the
 * product's counting: it dedups by (type, id) (all events are of one UTC day), joins clicks to
 * their impression by id, and adds up impressions, clicks and spend per advertiser.
 *
 * <p>Concurrency: every method is synchronized; the load's sender threads book, the test reads.
 */
final class Ledger {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One event the load sends; clicks carry the impression they belong to. */
    record Beacon(String type, String id, Instant ts, String advertiser, long costMicros, String impressionId) {
        String identity() {
            return type + "/" + id;
        }

        String json() {
            ObjectNode o = JSON.createObjectNode().put("type", type).put("id", id).put("ts", ts.toString());
            if (type.equals("impression")) {
                o.put("advertiser", advertiser).put("campaign", "c-" + advertiser).put("publisher", "pub-1")
                        .put("country", "US").put("deviceType", "mobile").put("costMicros", costMicros);
            } else {
                o.put("impressionId", impressionId);
            }
            return o.toString();
        }
    }

    private final Map<String, Beacon> acknowledged = new HashMap<>();
    private final List<Beacon> impressions = new ArrayList<>();
    private final Map<String, Beacon> unknown = new HashMap<>();
    private long sentLines;
    private long acknowledgedLines;

    synchronized void sent(int lines) {
        sentLines += lines;
    }

    /** The ingest answered 200 for this event (accepted or a duplicate of one stored before). */
    synchronized void acknowledge(Beacon b) {
        acknowledgedLines++;
        if (acknowledged.putIfAbsent(b.identity(), b) == null && b.type().equals("impression")) {
            impressions.add(b);
        }
        unknown.remove(b.identity());
    }

    /** The client gave up on this event's request: it may or may not be stored. */
    synchronized void unknown(Beacon b) {
        if (!acknowledged.containsKey(b.identity())) {
            unknown.put(b.identity(), b);
        }
    }

    synchronized Beacon anyImpression(java.util.Random rnd) {
        return impressions.isEmpty() ? null : impressions.get(rnd.nextInt(impressions.size()));
    }

    synchronized Beacon anyAcknowledged(java.util.Random rnd) {
        if (acknowledged.isEmpty()) {
            return null;
        }
        // Impressions are most of what is acknowledged; a random one of them is a fair pick.
        return anyImpression(rnd);
    }

    synchronized Set<String> acknowledgedIdentities() {
        return new HashSet<>(acknowledged.keySet());
    }

    synchronized Set<String> unknownIdentities() {
        return new HashSet<>(unknown.keySet());
    }

    /**
     * Settles the events whose request got no 200 (given up, or a probe answered 503): those found
     * in the raw table were stored whole and must be counted like acknowledged ones; the others were
     * not stored at all. Returns how many were found stored.
     */
    synchronized int settle(Set<String> rawIdentities) {
        int stored = 0;
        for (var it = unknown.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (rawIdentities.contains(e.getKey())) {
                acknowledged.putIfAbsent(e.getKey(), e.getValue());
                stored++;
            }
            it.remove();
        }
        return stored;
    }

    synchronized long sentLines() {
        return sentLines;
    }

    synchronized long acknowledgedLines() {
        return acknowledgedLines;
    }

    /** Expected day totals by advertiser: advertiser → metric → value (zero metrics left out). */
    synchronized Map<String, Map<String, Long>> byAdvertiser() {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        for (Beacon b : acknowledged.values()) {
            if (b.type().equals("impression")) {
                Map<String, Long> m = out.computeIfAbsent(b.advertiser(), a -> new TreeMap<>());
                m.merge("impressions", 1L, Long::sum);
                if (b.costMicros() != 0) {
                    m.merge("spendMicros", b.costMicros(), Long::sum);
                }
            } else {
                Beacon imp = acknowledged.get("impression/" + b.impressionId());
                out.computeIfAbsent(imp.advertiser(), a -> new TreeMap<>()).merge("clicks", 1L, Long::sum);
            }
        }
        return out;
    }

    /** Expected network totals, keyed "" like {@link FaultStack#totals} does for a rollup without dimensions. */
    synchronized Map<String, Map<String, Long>> network() {
        Map<String, Long> sum = new TreeMap<>();
        byAdvertiser().values().forEach(m -> m.forEach((k, v) -> sum.merge(k, v, Long::sum)));
        return sum.isEmpty() ? Map.of() : Map.of("", sum);
    }
}
