package io.adreport.schema.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsHistogramTest {
    /** "le" -> cumulative count of one histogram's buckets, read back from the text format. */
    private static Map<String, Long> buckets(String scrape, String name) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "_bucket{")) {
                int le = line.indexOf("le=\"") + 4;
                out.put(line.substring(le, line.indexOf('"', le)), Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)));
            }
        }
        return out;
    }

    @Test
    void latency_buckets_increase_strictly() {
        double[] b = Metrics.LATENCY_BUCKETS;
        for (int i = 1; i < b.length; i++) {
            assertTrue(b[i] > b[i - 1], "bucket " + i + ": " + b[i] + " after " + b[i - 1]);
        }
    }

    @Test
    void a_tail_between_2_and_10_ms_is_told_apart_in_the_text_format() {
        Metrics metrics = new Metrics();
        Metrics.Histogram h = metrics.histogram("t_seconds", "test", Metrics.LATENCY_BUCKETS, "route", "/v1/serve/check");
        double[] observed = {0.0012, 0.0025, 0.0035, 0.0035, 0.006, 0.009, 0.012, 0.3};
        for (double v : observed) {
            h.observe(v);
        }
        Map<String, Long> got = buckets(metrics.scrape(), "t_seconds");
        assertEquals(Metrics.LATENCY_BUCKETS.length + 1, got.size(), got.toString());
        // the expected cumulative counts, counted here from the observations themselves
        for (Map.Entry<String, Long> e : got.entrySet()) {
            double le = e.getKey().equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(e.getKey());
            long expected = 0;
            for (double v : observed) {
                if (v <= le) {
                    expected++;
                }
            }
            assertEquals(expected, e.getValue(), "le=" + e.getKey());
        }
        assertEquals(1L, got.get("0.002"));
        assertEquals(4L, got.get("0.004"));
        assertEquals(5L, got.get("0.0075"));
    }
}
