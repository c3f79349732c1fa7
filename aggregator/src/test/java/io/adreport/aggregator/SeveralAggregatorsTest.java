package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.aggregator.dayclose.InstanceCheck;
import io.adreport.reconcile.DayCloseProtocol;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two aggregator instances on one HBase ({@code aggregator.instances=2}) that receive overlapping
 * traffic, as behind a load balancer whose retries land on another instance: 30% of the events
 * are sent to both, the two senders run at the same time, so some copies race. The oracle
 * ({@link Recount}) counts each distinct event once from the beacons alone.
 *
 * <p>Its own namespace: the day close reads every heartbeat row of the meta table, and other
 * tests' aggregators (on other clocks) must not take part in it.
 */
@ExtendWith(HBaseExtension.class)
class SeveralAggregatorsTest {
    private static final double BOTH = 0.3;

    @Test
    void two_aggregators_fed_overlapping_batches_count_each_event_once_and_a_day_closes_with_one_of_them_killed(MiniHBase hbase)
            throws Exception {
        TestStack.Window w = TestStack.fresh(hbase, "multi").window();
        LocalDate today = LocalDate.ofInstant(w.now, ZoneOffset.UTC);
        LocalDate closing = today.minusDays(1);
        Instant closingNoon = closing.atTime(12, 0).toInstant(ZoneOffset.UTC);
        Traffic traffic = new Traffic(31);
        Random split = new Random(7);
        Recount oracle = new Recount();
        Map<String, String> common = Map.of("aggregator.instances", "2", "heartbeat.interval.ms", "200");
        Aggregator a = w.start(with(common, "aggregator.id", "multi-a"));
        Aggregator b = w.start(with(common, "aggregator.id", "multi-b"));
        DayStatusStore meta = new DayStatusStore(hbase.connection(), w.layout(), w.clock);
        HeartbeatStore heartbeats = new HeartbeatStore(hbase.connection(), w.layout(), w.clock);
        try {
            // A third instance that would dedup only against itself is refused, naming the setting.
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> InstanceCheck.checkJoin("multi-c", 1,
                    heartbeats.aggregators(), w.clock.instant(), Duration.ofSeconds(30)));
            assertTrue(refused.getMessage().startsWith("aggregator.instances: is 1"), refused.getMessage());

            // Phase 1: impressions of the closing day and of today, with replays.
            List<Beacon> impressions = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                impressions.add(traffic.impression(i % 2 == 0 ? closingNoon : w.now, Duration.ofHours(10)));
            }
            List<Beacon> phase1 = traffic.withReplays(impressions, 0.05);
            Traffic.Answers p1 = sendOverlapping(a, b, phase1, split);
            long fresh1 = oracle.phase(phase1);
            // Phase 2: clicks and conversions of those impressions, again overlapping.
            List<Beacon> joins = new ArrayList<>();
            for (int i = 0; i < impressions.size(); i += 3) {
                Beacon imp = impressions.get(i);
                Instant end = LocalDate.ofInstant(imp.ts(), ZoneOffset.UTC).equals(today) ? w.now : closing.atTime(23, 0).toInstant(ZoneOffset.UTC);
                joins.add(i % 2 == 0 ? traffic.clickOf(imp, end) : traffic.conversionOf(imp, end));
            }
            Traffic.Answers p2 = sendOverlapping(a, b, joins, split);
            long fresh2 = oracle.phase(joins);
            a.flushNow();
            b.flushNow();

            assertEquals(fresh1 + fresh2, p1.accepted() + p2.accepted(), "each distinct event accepted by exactly one instance");
            assertEquals(phase1.size() + joins.size() + overlap, p1.accepted() + p1.duplicates() + p2.accepted()
                    + p2.duplicates(), "every copy answered");
            assertEquals(oracle.unique, w.rawRows().size(), "every distinct event stored once");
            assertEquals(new TreeMap<>(oracle.expected), new TreeMap<>(w.counters()), "live counters equal the recount");

            // Phase 3: more impressions to both; instance B is killed while its sender runs. Whatever B
            // did not answer is retried on A (what a load balancer does with a dead instance).
            List<Beacon> phase3 = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                phase3.add(traffic.impression(i % 2 == 0 ? closingNoon : w.now, Duration.ofHours(10)));
            }
            List<Beacon> toA = new ArrayList<>();
            List<Beacon> toB = new ArrayList<>();
            splitOverlapping(phase3, split, toA, toB);
            int bPort = b.port();
            AtomicInteger bRequests = new AtomicInteger();
            Aggregator killed = b;
            CompletableFuture<List<Beacon>> bUnanswered = CompletableFuture.supplyAsync(() -> sendTolerant(bPort, toB, 10, () -> {
                if (bRequests.incrementAndGet() == 8) {
                    killed.abort(); // mid-run: later requests to B fail
                }
            }));
            Traffic.send(a, toA, 10, 2);
            List<Beacon> retried = bUnanswered.get();
            assertTrue(!retried.isEmpty(), "B was killed before it answered everything");
            Traffic.send(a, retried, 10, 2);
            oracle.phase(phase3);
            a.flushNow();
            assertEquals(oracle.unique, w.rawRows().size(), "every distinct event stored once, also across the kill");

            // The day close waits for every live instance: A acknowledges; B's last heartbeat expires.
            AtomicInteger polls = new AtomicInteger();
            DayCloseProtocol close = new DayCloseProtocol(meta, heartbeats, w.clock, d -> {
                polls.incrementAndGet();
                w.clock.advance(d);
                Thread.sleep(d.toMillis());
            }, Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofMillis(100));
            DayCloseProtocol.Outcome outcome = close.close(closing);
            assertEquals(List.of("multi-a"), outcome.acknowledged());
            assertEquals(List.of(), outcome.unacknowledged(), "completed before the grace period");
            assertEquals(List.of("multi-b"), outcome.notLive(), "the killed instance is not waited for once its heartbeat expired");
            assertTrue(polls.get() > 0, "it waited while B's heartbeat was still current");

            // The nightly job then restores what B's kill lost: the closed day equals the recount.
            new Reconciler(hbase.configuration(), hbase.connection(), w.layout(), ReconcileConfig.of(Map.of("reconcile.grace.ms", "0")),
                    w.clock).reconcile(closing, false, null);
            assertEquals(ofDay(oracle.expected, closing), ofDay(w.counters(), closing), "the closed day, recounted, equals the oracle");
        } finally {
            a.close();
            b.close(); // no-op after abort
        }
    }

    /** Copies that went to both instances in phases 1 and 2 (each answered once more). */
    private int overlap;

    /** Sends {@code events} to {@code a} and {@code b} at the same time, 30% of them to both. */
    private Traffic.Answers sendOverlapping(Aggregator a, Aggregator b, List<Beacon> events, Random split) throws Exception {
        List<Beacon> toA = new ArrayList<>();
        List<Beacon> toB = new ArrayList<>();
        overlap += splitOverlapping(events, split, toA, toB);
        CompletableFuture<Traffic.Answers> atB = CompletableFuture.supplyAsync(() -> {
            try {
                return Traffic.send(b, toB, 10, 2);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Traffic.Answers atA = Traffic.send(a, toA, 10, 2);
        Traffic.Answers other = atB.get();
        return new Traffic.Answers(atA.accepted() + other.accepted(), atA.duplicates() + other.duplicates(),
                atA.rejected() + other.rejected());
    }

    /** Each event to A or B; 30% to both (in a different order at each). Returns how many went to both. */
    private static int splitOverlapping(List<Beacon> events, Random split, List<Beacon> toA, List<Beacon> toB) {
        int both = 0;
        for (Beacon e : events) {
            double r = split.nextDouble();
            if (r < BOTH) {
                toA.add(e);
                toB.add(e);
                both++;
            } else if (r < BOTH + (1 - BOTH) / 2) {
                toA.add(e);
            } else {
                toB.add(e);
            }
        }
        java.util.Collections.shuffle(toB, split);
        return both;
    }

    /** Posts {@code events} one request after another; returns the beacons of requests not answered 200. */
    private static List<Beacon> sendTolerant(int port, List<Beacon> events, int perRequest, Runnable beforeEach) {
        List<Beacon> unanswered = new ArrayList<>();
        for (int i = 0; i < events.size(); i += perRequest) {
            List<Beacon> chunk = events.subList(i, Math.min(events.size(), i + perRequest));
            beforeEach.run();
            StringBuilder body = new StringBuilder();
            chunk.forEach(e -> body.append(e.json()).append('\n'));
            try {
                var r = TestStack.HTTP.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://localhost:" + port + "/v1/events"))
                        .timeout(Duration.ofSeconds(60)).POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    unanswered.addAll(chunk);
                }
            } catch (Exception e) {
                unanswered.addAll(chunk);
            }
        }
        return unanswered;
    }

    private static Map<String, Long> ofDay(Map<String, Long> cells, LocalDate day) {
        Map<String, Long> out = new TreeMap<>();
        cells.forEach((k, v) -> {
            long minute = Long.parseLong(k.split("\\|", -1)[2]);
            if (Math.floorDiv(minute, 1440) == day.toEpochDay()) {
                out.put(k, v);
            }
        });
        return out;
    }

    private static Map<String, String> with(Map<String, String> base, String key, String value) {
        Map<String, String> out = new HashMap<>(base);
        out.put(key, value);
        return out;
    }
}
