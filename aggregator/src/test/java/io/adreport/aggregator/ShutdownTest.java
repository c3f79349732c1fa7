package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(HBaseExtension.class)
class ShutdownTest {

    @Test
    void close_flushes_the_buffer(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        Traffic traffic = new Traffic(3);
        Recount recount = new Recount();
        List<Beacon> events = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            Beacon imp = traffic.impression(w.now, Duration.ofHours(5));
            events.add(imp);
        }
        Aggregator agg = w.start(Map.of("flush.interval.ms", "60000"));
        Traffic.send(agg, events, 15, 2);
        recount.phase(events);
        assertTrue(w.counters().isEmpty(), "nothing flushed yet (interval is a minute)");
        agg.close();
        assertEquals(recount.expected, w.counters());
    }
}
