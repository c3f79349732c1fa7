package io.adreport.aggregator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;

/**
 * An event as a client sends it (test side): impression with dimensions and cost, or click /
 * conversion naming its impression.
 */
record Beacon(String type, String id, Instant ts, Map<String, String> dims, long money, String impressionId) {
    private static final ObjectMapper JSON = new ObjectMapper();

    Beacon {
        dims = new TreeMap<>(dims);
    }

    static Beacon impression(String id, Instant ts, Map<String, String> dims, long costMicros) {
        return new Beacon("impression", id, ts, dims, costMicros, null);
    }

    static Beacon click(String id, Instant ts, String impressionId) {
        return new Beacon("click", id, ts, Map.of(), 0, impressionId);
    }

    static Beacon conversion(String id, Instant ts, String impressionId, long valueMicros) {
        return new Beacon("conversion", id, ts, Map.of(), valueMicros, impressionId);
    }

    /** Dedup identity: type, id and UTC day of ts. */
    String identity() {
        return type + "/" + id + "/" + LocalDate.ofInstant(ts, ZoneOffset.UTC);
    }

    String json() {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", type).put("id", id).put("ts", ts.toString());
        dims.forEach(o::put);
        if (type.equals("impression")) {
            o.put("costMicros", money);
        } else {
            o.put("impressionId", impressionId);
            if (type.equals("conversion")) {
                o.put("valueMicros", money);
            }
        }
        return o.toString();
    }
}
