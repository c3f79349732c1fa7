package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(HBaseExtension.class)
class BackpressureTest {

    /**
     * The flush is held up (HBase slow), the buffer fills, and ingest answers 429 with
     * Retry-After having stored nothing of the refused request; once HBase answers again the
     * client's retries go through and every counter equals the recount.
     */
    @Test
    void a_full_buffer_answers_429_and_loses_nothing(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        FaultyTables tables = new FaultyTables(TableSource.of(hbase.connection(), Duration.ofSeconds(30)), w.layout().rawTable());
        CountDownLatch hbaseSlow = new CountDownLatch(1);
        tables.counterBatch = (real, actions, results) -> {
            if (!hbaseSlow.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test never released the flush");
            }
            real.batch(actions, results);
        };
        Traffic traffic = new Traffic(5);
        Recount recount = new Recount();
        List<String> refused = new ArrayList<>();
        List<Beacon> all = new ArrayList<>();
        try (Aggregator agg = w.start(Map.of("buffer.max.cells", "5000", "ingest.block.ms", "200"), tables)) {
            for (int request = 0; request < 30 && refused.isEmpty(); request++) {
                List<Beacon> chunk = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    chunk.add(traffic.impression(w.now, Duration.ofHours(20)));
                }
                all.addAll(chunk);
                StringBuilder body = new StringBuilder();
                chunk.forEach(b -> body.append(b.json()).append('\n'));
                HttpResponse<String> r = TestStack.post(agg, body.toString());
                if (r.statusCode() == 429) {
                    assertEquals("1", r.headers().firstValue("Retry-After").orElse(null));
                    refused.add(body.toString());
                } else {
                    assertEquals(200, r.statusCode(), r.body());
                }
            }
            assertEquals(1, refused.size(), "the buffer filled up and ingest pushed back");
            int storedBeforeRetry = w.rawRows().size();
            assertEquals(all.size() - 25, storedBeforeRetry, "nothing of the refused request was stored");

            hbaseSlow.countDown();
            HttpResponse<String> retry;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // a ceiling on the wait for the drain, not a timing
            do {
                retry = TestStack.post(agg, refused.get(0));
            } while (retry.statusCode() == 429 && System.nanoTime() < deadline);
            assertEquals(200, retry.statusCode(), retry.body());
            assertTrue(retry.body().contains("\"accepted\":25"), retry.body());
            recount.phase(all);
            agg.flushNow();
            assertEquals(0, agg.stats().cellsUnapplied.get());
        }
        assertEquals(recount.expected, w.counters());
    }
}
