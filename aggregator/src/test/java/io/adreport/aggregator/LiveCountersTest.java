package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(HBaseExtension.class)
class LiveCountersTest {

    /**
     * Two phases of concurrent requests over three UTC days: impressions, clicks and conversions of
     * earlier impressions, clicks that arrive before their impression (phase 1 click, phase 2
     * impression), clicks of impressions never sent, 20% replays within and across phases, event
     * times out of order. Every cell of every rollup and granularity must equal the recount.
     */
    @ParameterizedTest(name = "{0} mode")
    @ValueSource(strings = {"coalesced", "naive"})
    void live_counters_equal_an_independent_recount_with_replays_and_out_of_order_clicks(String mode, MiniHBase hbase) throws Exception {
        TestStack.Window stack = TestStack.shared(hbase).window();
        Traffic traffic = new Traffic(42);
        Recount recount = new Recount();
        int scale = mode.equals("naive") ? 1 : 3;

        List<Beacon> early = new ArrayList<>();
        List<Beacon> late = new ArrayList<>();
        for (int i = 0; i < 200 * scale; i++) {
            Beacon imp = traffic.impression(stack.now, Duration.ofHours(60));
            (i % 5 == 0 ? late : early).add(imp);
        }
        List<Beacon> phase1 = new ArrayList<>(early);
        for (int i = 0; i < late.size(); i += 2) {
            phase1.add(traffic.clickOf(late.get(i), stack.now)); // click before its impression
        }
        for (int i = 0; i < 10 * scale; i++) {
            phase1.add(Beacon.click("orphan" + i, stack.now.minusSeconds(60L * i), "never-sent-" + i));
        }
        List<Beacon> phase2 = new ArrayList<>(late);
        for (int i = 0; i < early.size(); i++) {
            if (i % 3 == 0) {
                phase2.add(traffic.clickOf(early.get(i), stack.now));
            }
            if (i % 11 == 0) {
                phase2.add(traffic.conversionOf(early.get(i), stack.now));
            }
        }
        List<Beacon> sent1 = traffic.withReplays(phase1, 0.2);
        List<Beacon> sent2 = traffic.withReplays(phase2, 0.2);
        sent2.addAll(phase1.subList(0, phase1.size() / 10)); // replays across phases
        traffic.shuffle(sent2);

        try (Aggregator agg = stack.start(Map.of("aggregator.mode", mode))) {
            Traffic.Answers a1 = Traffic.send(agg, sent1, 25, 4);
            long fresh1 = recount.phase(sent1);
            Traffic.Answers a2 = Traffic.send(agg, sent2, 25, 4);
            long fresh2 = recount.phase(sent2);

            assertEquals(fresh1, a1.accepted(), "phase 1 accepted");
            assertEquals(sent1.size() - fresh1, a1.duplicates(), "phase 1 duplicates");
            assertEquals(fresh2, a2.accepted(), "phase 2 accepted");
            assertEquals(sent2.size() - fresh2, a2.duplicates(), "phase 2 duplicates");
            assertEquals(0, a1.rejected() + a2.rejected());
            agg.flushNow();
            assertEquals(0, agg.stats().cellsUnapplied.get());
        }
        assertEquals(recount.expected, stack.counters());
        assertTrue(recount.expected.containsKey(Recount.key("network", "day", stack.now.getEpochSecond() / 60 / 1440 * 1440,
                List.of(), "unattributedClicks")), "the scenario has unattributed clicks today");
        Map<String, Long> raw = stack.rawRows();
        assertEquals(recount.unique, raw.size(), "one raw row per distinct event");
        long duplicates = sent1.size() + sent2.size() - recount.unique;
        assertEquals(duplicates, raw.values().stream().mapToLong(Long::longValue).sum(), "e:dup records every acknowledged duplicate");
    }
}
