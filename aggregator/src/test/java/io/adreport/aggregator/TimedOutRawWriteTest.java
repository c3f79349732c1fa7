package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A group commit whose raw write the region server applied but answered after the client's
 * timeout: the request is answered 503 and nothing is counted, yet the rows are stored. Every
 * event must still be counted live exactly once, whether the client retries at the same instance,
 * at another instance, or not at all. The expected counters are the test's own recount
 * ({@link Recount}) of the distinct beacons sent; the slow write is a region observer that holds
 * the raw batch holding an armed event id for {@link SlowRawWrite#HOLD} after applying it, with
 * the aggregator's HBase timeout at 3 s.
 *
 * <p>Before the in-doubt record ({@code store.InDoubtRows}), the retries answered those events
 * duplicate and the live counters stayed short by every held event.
 */
@ExtendWith(HBaseExtension.class)
class TimedOutRawWriteTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> SLOW_CLIENT = Map.of("hbase.timeout.ms", "3000");

    @Test
    void events_a_timed_out_write_stored_are_counted_once_when_retried_and_when_not(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.shared(hbase).window();
        w.observeRaw(SlowRawWrite.class);
        Traffic traffic = new Traffic(53);
        Recount oracle = new Recount();
        Aggregator a = w.start(SLOW_CLIENT, TableSource.of(hbase.connection(), Duration.ofSeconds(3)));
        try {
            List<Beacon> impressions = sent(a, traffic, w, oracle); // what the clicks below join

            // Retried at the same instance: the existence read finds the rows with the failed attempt's token.
            List<Beacon> retried = batch(traffic, w, impressions, 150, 50);
            // The held region's rows are stored once the hold ends; rows of regions the client had not sent
            // to yet are not. Either way the retry (or the check before it) counts each event once.
            assertEquals(503, heldPost(a, retried).statusCode(), "the held write outlasted the client's timeout");
            JsonNode again = answer(post(a, retried));
            assertEquals(200, again.get("accepted").asInt() + again.get("duplicates").asInt(), again.toString());
            oracle.phase(retried);

            // Not retried: the writers' periodic check finds the rows stored by this instance's attempt.
            List<Beacon> abandoned = batch(traffic, w, impressions, 100, 30);
            // Not retried: the writers' periodic check counts the rows the attempt stored; the rows it never
            // sent stay in doubt (checked again, given up after InDoubtRows.GIVE_UP) and are never counted.
            assertEquals(503, heldPost(a, abandoned).statusCode());
            Thread.sleep(1_000); // the held rows become visible as the hold ends
            Map<String, Long> raw = w.rawRows();
            List<Beacon> stored = abandoned.stream().filter(b -> raw.containsKey(b.type() + "/" + b.id())).toList();
            assertTrue(!stored.isEmpty(), "the held rows were stored");
            awaitInDoubt(a, abandoned.size() - stored.size());
            oracle.phase(stored);

            a.flushNow();
            assertEquals(new TreeMap<>(oracle.expected), new TreeMap<>(w.counters()), "live counters equal the recount");
            assertEquals(oracle.unique, w.rawRows().size(), "every distinct event stored once");
            Map<String, Double> settled = settled(a);
            assertTrue(settled.get("counted") > 0, "rows an attempt with an unknown outcome stored were counted: " + settled);
        } finally {
            SlowRawWrite.arm(null);
            a.close();
        }
    }

    @Test
    void with_two_instances_a_retry_at_the_other_one_answers_duplicate_and_the_writer_counts_it(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.fresh(hbase, "doubt").window();
        w.observeRaw(SlowRawWrite.class);
        Traffic traffic = new Traffic(59);
        Recount oracle = new Recount();
        Map<String, String> settings = new HashMap<>(SLOW_CLIENT);
        settings.put("aggregator.instances", "2");
        settings.put("aggregator.id", "doubt-a");
        Aggregator a = w.start(settings, TableSource.of(hbase.connection(), Duration.ofSeconds(3)));
        settings.put("aggregator.id", "doubt-b");
        Aggregator b = w.start(settings, TableSource.of(hbase.connection(), Duration.ofSeconds(3)));
        try {
            List<Beacon> impressions = sent(a, traffic, w, oracle); // what the clicks below join

            // Held at A, retried at B: B's put-if-absent finds the rows A stored (duplicate); A's check counts them.
            List<Beacon> elsewhere = batch(traffic, w, impressions, 150, 50);
            assertEquals(503, heldPost(a, elsewhere).statusCode());
            JsonNode atB = answer(post(b, elsewhere));
            assertEquals(200, atB.get("accepted").asInt() + atB.get("duplicates").asInt(), atB.toString());
            oracle.phase(elsewhere);
            awaitInDoubt(a, 0);

            // Held at A, retried at A: the put-if-absent is not applied, and a read of the token recovers the rows.
            List<Beacon> here = batch(traffic, w, impressions, 100, 30);
            assertEquals(503, heldPost(a, here).statusCode());
            JsonNode atA = answer(post(a, here));
            assertEquals(130, atA.get("accepted").asInt() + atA.get("duplicates").asInt(), atA.toString());
            oracle.phase(here);

            a.flushNow();
            b.flushNow();
            assertEquals(new TreeMap<>(oracle.expected), new TreeMap<>(w.counters()), "live counters equal the recount");
            assertEquals(oracle.unique, w.rawRows().size(), "every distinct event stored once");
            assertTrue(settled(a).get("counted") > 0, settled(a).toString());
        } finally {
            SlowRawWrite.arm(null);
            a.close();
            b.close();
        }
    }

    /** 150 impressions sent normally (stored and counted) and recounted by the oracle. */
    private static List<Beacon> sent(Aggregator a, Traffic traffic, TestStack.Window w, Recount oracle) throws Exception {
        List<Beacon> impressions = impressions(traffic, w, 150);
        Traffic.send(a, impressions, 50, 2);
        oracle.phase(impressions);
        return impressions;
    }

    private static List<Beacon> impressions(Traffic traffic, TestStack.Window w, int n) {
        List<Beacon> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(traffic.impression(w.now, Duration.ofHours(6)));
        }
        return out;
    }

    /** New impressions and clicks of earlier (stored) impressions, in one request: one group commit. */
    private static List<Beacon> batch(Traffic traffic, TestStack.Window w, List<Beacon> earlier, int impressions, int clicks) {
        List<Beacon> out = impressions(traffic, w, impressions);
        for (int i = 0; i < clicks; i++) {
            out.add(traffic.clickOf(earlier.get(i * 3 % earlier.size()), w.now));
        }
        return out;
    }

    /** Posts with the raw write of the batch's first event held past the client's timeout; waits until it is released. */
    private static HttpResponse<String> heldPost(Aggregator agg, List<Beacon> events) throws InterruptedException {
        SlowRawWrite.arm(events.get(0).id());
        HttpResponse<String> r = post(agg, events);
        assertTrue(SlowRawWrite.held.await(30, TimeUnit.SECONDS), "the raw write was held");
        return r;
    }

    private static HttpResponse<String> post(Aggregator agg, List<Beacon> events) {
        StringBuilder body = new StringBuilder();
        events.forEach(b -> body.append(b.json()).append('\n'));
        return TestStack.post(agg, body.toString());
    }

    private static JsonNode answer(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    /** Waits until {@code rows} rows are in doubt: the others were found stored (and counted) or stored again. */
    private static void awaitInDoubt(Aggregator agg, int rows) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (gauge(agg, "adreport_raw_in_doubt_rows") != rows && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(rows, gauge(agg, "adreport_raw_in_doubt_rows"), "rows in doubt");
    }

    private static double gauge(Aggregator agg, String name) {
        return agg.metrics().scrape().lines().filter(l -> l.startsWith(name + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1))).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not exported"));
    }

    /** adreport_raw_in_doubt_settled_total by outcome. */
    private static Map<String, Double> settled(Aggregator agg) {
        Map<String, Double> out = new TreeMap<>();
        String prefix = "adreport_raw_in_doubt_settled_total{outcome=\"";
        agg.metrics().scrape().lines().filter(l -> l.startsWith(prefix)).forEach(l -> {
            int end = l.indexOf('"', prefix.length());
            out.put(l.substring(prefix.length(), end), Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)));
        });
        return out;
    }


    /**
     * Holds, once, the raw batch that writes the armed event id, {@link #HOLD} after applying it
     * (a handler slower than the client's timeout). A plain multi-put passes postBatchMutate; a
     * put-if-absent passes postCheckAndMutate (and maybe postBatchMutate too: it holds once).
     */
    public static final class SlowRawWrite implements RegionCoprocessor, RegionObserver {
        static final long HOLD = 6_000;
        private static volatile String id;
        static volatile CountDownLatch held = new CountDownLatch(1);

        static synchronized void arm(String eventId) {
            held = new CountDownLatch(1);
            id = eventId;
        }

        private static boolean take(byte[] row) {
            String armed = id;
            if (armed == null || !Bytes.toString(row).endsWith("\0" + armed)) {
                return false;
            }
            synchronized (SlowRawWrite.class) {
                if (id == null) {
                    return false;
                }
                id = null;
                return true;
            }
        }

        private static void hold() {
            try {
                Thread.sleep(HOLD);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            held.countDown();
        }

        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        @Override
        public void postBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch) {
            for (int i = 0; i < batch.size(); i++) {
                if (take(batch.getOperation(i).getRow())) {
                    hold();
                    return;
                }
            }
        }

        @Override
        public CheckAndMutateResult postCheckAndMutate(ObserverContext<RegionCoprocessorEnvironment> c, CheckAndMutate check,
                                                       CheckAndMutateResult result) {
            if (take(check.getRow())) {
                hold();
            }
            return result;
        }
    }
}
