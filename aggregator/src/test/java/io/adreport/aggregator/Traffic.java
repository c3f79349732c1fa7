package io.adreport.aggregator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Seeded synthetic beacons and a concurrent sender. */
final class Traffic {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Random random;
    private int next;

    Traffic(long seed) {
        this.random = new Random(seed);
    }

    /** An impression within the last {@code spread} before {@code now}, skewed towards a few advertisers. */
    Beacon impression(Instant now, Duration spread) {
        int adv = Math.min(random.nextInt(6), random.nextInt(6));
        Map<String, String> dims = Map.of(
                "advertiser", "adv" + adv,
                "campaign", "c" + random.nextInt(3),
                "creative", "cr" + random.nextInt(2),
                "publisher", "pub" + random.nextInt(4),
                "zone", "z" + random.nextInt(3),
                "country", List.of("US", "DE", "FR", "IN", "BR").get(random.nextInt(5)),
                "deviceType", List.of("mobile", "desktop", "tablet").get(random.nextInt(3)));
        long cost = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(5000);
        return Beacon.impression("i" + (next++), now.minusSeconds(random.nextLong(spread.toSeconds())), dims, cost);
    }

    Beacon clickOf(Beacon imp, Instant now) {
        long gap = Math.max(1, Math.min(3600, Duration.between(imp.ts(), now).toSeconds()));
        return Beacon.click("k" + (next++), imp.ts().plusSeconds(random.nextLong(gap)), imp.id());
    }

    Beacon conversionOf(Beacon imp, Instant now) {
        long gap = Math.max(1, Math.min(7200, Duration.between(imp.ts(), now).toSeconds()));
        return Beacon.conversion("v" + (next++), imp.ts().plusSeconds(random.nextLong(gap)), imp.id(), random.nextInt(3) * 1000L);
    }

    /** {@code events} plus replays of a {@code share} of them, shuffled. */
    List<Beacon> withReplays(List<Beacon> events, double share) {
        List<Beacon> out = new ArrayList<>(events);
        for (Beacon b : events) {
            if (random.nextDouble() < share) {
                out.add(b);
            }
        }
        Collections.shuffle(out, random);
        return out;
    }

    void shuffle(List<Beacon> events) {
        Collections.shuffle(events, random);
    }

    /** What the aggregator answered in total. */
    record Answers(long accepted, long duplicates, long rejected) {
    }

    /** Posts {@code events} as NDJSON requests of {@code perRequest}, {@code threads} at a time; every request must be 200. */
    static Answers send(Aggregator agg, List<Beacon> events, int perRequest, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong accepted = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < events.size(); i += perRequest) {
                List<Beacon> chunk = events.subList(i, Math.min(events.size(), i + perRequest));
                done.add(pool.submit(() -> {
                    StringBuilder body = new StringBuilder();
                    chunk.forEach(b -> body.append(b.json()).append('\n'));
                    var r = TestStack.post(agg, body.toString());
                    if (r.statusCode() != 200) {
                        throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
                    }
                    JsonNode n = JSON.readTree(r.body());
                    accepted.addAndGet(n.get("accepted").asLong());
                    duplicates.addAndGet(n.get("duplicates").asLong());
                    rejected.addAndGet(n.get("rejected").size());
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        return new Answers(accepted.get(), duplicates.get(), rejected.get());
    }
}
