package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code aggregator.mode=put-only}, the benchmark's ceiling: raw rows only, no dedup, no counters. */
@ExtendWith(HBaseExtension.class)
class PutOnlyModeTest {

    @Test
    void put_only_mode_stores_every_accepted_event_raw_and_writes_no_counter(MiniHBase hbase) throws Exception {
        TestStack.Window stack = TestStack.shared(hbase).window();
        Traffic traffic = new Traffic(7);
        List<Beacon> events = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Beacon imp = traffic.impression(stack.now, Duration.ofHours(30));
            events.add(imp);
            if (i % 4 == 0) {
                events.add(traffic.clickOf(imp, stack.now));
            }
        }
        List<Beacon> sent = traffic.withReplays(events, 0.2);

        try (Aggregator agg = stack.start(Map.of("aggregator.mode", "put-only"))) {
            Traffic.Answers answers = Traffic.send(agg, sent, 40, 4);
            var bad = TestStack.post(agg, "{\"type\":\"impression\",\"id\":\"bad-1\",\"ts\":\"yesterday\"}\n");
            agg.flushNow();

            assertEquals(sent.size(), answers.accepted(), "no dedup: every valid event, replays too, is accepted");
            assertEquals(0, answers.duplicates());
            assertEquals(200, bad.statusCode());
            assertTrue(bad.body().contains("\"rejected\":[{\"index\":0"), "validation still runs: " + bad.body());
            assertEquals(sent.size(), agg.stats().accepted.get());
            assertEquals(0, agg.stats().countedEvents.get(), "nothing counted");
            assertEquals(0, agg.stats().cellsSent.get(), "no increment sent");
            assertEquals(0, agg.stats().existenceReads.get(), "no existence read");
        }
        Map<String, Long> expected = new HashMap<>();
        events.forEach(b -> expected.put(b.type() + "/" + b.id(), 0L));
        assertEquals(expected, stack.rawRows(), "one raw row per distinct event, no e:dup marks");
        assertEquals(Map.of(), stack.counters(), "no counter cell written");
        assertEquals(events.size(), sent.stream().map(b -> b.type() + "/" + b.id()).collect(Collectors.toSet()).size());
    }
}
