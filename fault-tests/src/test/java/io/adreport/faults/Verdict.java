package io.adreport.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The checks every scenario ends with, after its load has stopped: every acknowledged event id
 * is in the raw table (lost = 0), nothing is stored that was never sent, the live counters are
 * never above the recount (nothing counted twice; below it is allowed and reported: uncertain
 * counter batches are not re-sent, the nightly job restores them), and after the nightly job the
 * counters equal the recount exactly. Appends one row of the
 * RELIABILITY table to {@code target/faults-results.md}.
 */
final class Verdict {
    private Verdict() {
    }

    static void check(String scenario, String load, String faults, FaultStack stack, Ledger ledger, Load traffic,
                      double recoverySeconds) throws Exception {
        assertEquals(0, traffic.givenUp(), "the client outlasted the fault: " + traffic.lastError());
        stack.aggregator.flushNow();

        Set<String> acked = ledger.acknowledgedIdentities();
        Set<String> raw = stack.rawIdentities();
        Set<String> lost = new HashSet<>(acked);
        lost.removeAll(raw);
        Set<String> invented = new HashSet<>(raw);
        invented.removeAll(acked);
        invented.removeAll(ledger.unknownIdentities());
        int storedUnanswered = ledger.settle(raw);
        System.err.printf("FAULTS %s: %d events answered 503 or given up were found stored whole (counted by the recount)%n",
                scenario, storedUnanswered);

        Map<String, Map<String, Long>> expected = ledger.byAdvertiser();
        Map<String, Map<String, Long>> live = stack.totals("advertiser", "advertiser");
        long liveOver = distance(live, expected, true);
        long liveUnder = distance(live, expected, false);
        List<String> liveAbove = above(live, expected);

        stack.reconcile();
        stack.aggregator.flushNow();
        Map<String, Map<String, Long>> exact = stack.totals("advertiser", "advertiser");
        Map<String, Map<String, Long>> network = stack.totals("network", null);
        long duplicatesCounted = distance(exact, expected, true);

        String row = String.format("| %s | %s | %s | %,d | %,d | %d | %d | %s | %.1f s | live: +%d / -%d |%n", scenario, load,
                faults, ledger.acknowledgedLines(), acked.size(), lost.size(), duplicatesCounted,
                exact.equals(expected) && network.equals(ledger.network()) ? "yes" : "NO", recoverySeconds, liveOver, liveUnder);
        System.err.print("FAULTS " + row);
        Path out = Path.of("target", "faults-results.md");
        Files.writeString(out, row, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        System.err.printf("FAULTS %s: retried statuses %s, requests %,d, rejected %d%n", scenario, traffic.retriedStatuses(),
                traffic.requests(), traffic.rejected());

        assertTrue(lost.isEmpty(), lost.size() + " acknowledged events are not in the raw table, e.g. "
                + lost.stream().limit(5).toList());
        assertTrue(invented.isEmpty(), "stored but never sent: " + invented.stream().limit(5).toList());
        // Live counters may lag the recount (uncertain batches are not re-sent; the nightly job
        // restores them) but never exceed it: above it, something was counted twice.
        assertTrue(liveAbove.isEmpty(), "live counters above the recount before the nightly job (counted twice): "
                + liveAbove.size() + " of them, e.g. " + liveAbove.stream().limit(5).toList());
        assertEquals(expected, exact, "counters by advertiser after the nightly job equal the recount");
        assertEquals(ledger.network(), network, "network counters after the nightly job equal the recount");
    }

    /** Every (group, metric) whose {@code actual} value is above {@code expected}, spend included. */
    static List<String> above(Map<String, Map<String, Long>> actual, Map<String, Map<String, Long>> expected) {
        List<String> out = new ArrayList<>();
        for (var g : new TreeMap<>(actual).entrySet()) {
            Map<String, Long> e = expected.getOrDefault(g.getKey(), Map.of());
            for (var m : new TreeMap<>(g.getValue()).entrySet()) {
                long recount = e.getOrDefault(m.getKey(), 0L);
                if (m.getValue() > recount) {
                    out.add(g.getKey() + "/" + m.getKey() + ": live " + m.getValue() + " > recount " + recount);
                }
            }
        }
        return out;
    }

    /** Sum over groups and metrics of how far {@code actual} is above (or below) {@code expected}. */
    static long distance(Map<String, Map<String, Long>> actual, Map<String, Map<String, Long>> expected, boolean above) {
        Set<String> groups = new HashSet<>(actual.keySet());
        groups.addAll(expected.keySet());
        long d = 0;
        for (String g : groups) {
            Map<String, Long> a = actual.getOrDefault(g, Map.of());
            Map<String, Long> e = expected.getOrDefault(g, Map.of());
            Map<String, Long> all = new TreeMap<>(a);
            e.forEach(all::putIfAbsent);
            for (String metric : all.keySet()) {
                if (metric.equals("spendMicros")) {
                    continue; // counted in events, not micros
                }
                long diff = a.getOrDefault(metric, 0L) - e.getOrDefault(metric, 0L);
                d += above ? Math.max(0, diff) : Math.max(0, -diff);
            }
        }
        return d;
    }
}
