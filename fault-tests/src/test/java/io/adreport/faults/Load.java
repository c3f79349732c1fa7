package io.adreport.faults;

import io.adreport.client.Delivery;
import io.adreport.client.IngestClient;
import io.adreport.client.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Replay-style load: {@code threads} senders post batches of the day's events through the one
 * {@link IngestClient} (its retry policy) at about {@code rate} events/s in all, and book every
 * answer in the {@link Ledger}. A batch is mostly new impressions, a tenth clicks of acknowledged
 * impressions, and a twentieth re-sends of acknowledged impressions (duplicates).
 *
 * <p>It also records when the ingest pushed back: the statuses that were retried, and the time
 * of the first and the last such answer (nanoTime), from which a test reads how long the fault
 * was visible to clients.
 *
 * <p>Concurrency: the sender threads own their Random and batch; shared state is the Ledger
 * (synchronized), atomics and {@code statuses} (synchronized).
 */
final class Load implements AutoCloseable {
    private final IngestClient client;
    private final Ledger ledger;
    private final LocalDate day;
    private final int batch;
    private final double ratePerThread;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final Map<Integer, Long> statuses = new TreeMap<>();
    private final AtomicLong firstPushback = new AtomicLong();
    private final AtomicLong lastPushback = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong givenUp = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private volatile String lastError;

    Load(FaultStack stack, Ledger ledger, int threads, int batch, double rate, RetryPolicy policy) {
        this.client = new IngestClient(stack.ingestUrl(), policy, Clock.systemUTC(), IngestClient.Sleeper.REAL);
        this.ledger = ledger;
        this.day = stack.day;
        this.batch = batch;
        this.ratePerThread = rate / threads;
        for (int t = 0; t < threads; t++) {
            int n = t;
            Thread th = new Thread(() -> run(n), "faults-load-" + t);
            th.setDaemon(true);
            this.threads.add(th);
        }
    }

    Load start() {
        threads.forEach(Thread::start);
        return this;
    }

    private void run(int thread) {
        Random rnd = new Random(1000L + thread);
        Instant from = day.atStartOfDay(ZoneOffset.UTC).toInstant();
        long seq = 0;
        long started = System.nanoTime();
        long lines = 0;
        while (running.get()) {
            List<Ledger.Beacon> beacons = new ArrayList<>(batch);
            Set<String> inBatch = new HashSet<>();
            for (int i = 0; i < batch; i++) {
                int pick = rnd.nextInt(100);
                Ledger.Beacon b;
                if (pick < 5 && (b = ledger.anyAcknowledged(rnd)) != null && inBatch.add(b.identity())) {
                    beacons.add(b);
                    continue;
                }
                Instant ts = from.plusSeconds(rnd.nextInt(86_400));
                if (pick < 15 && (b = ledger.anyImpression(rnd)) != null) {
                    beacons.add(new Ledger.Beacon("click", "c-" + thread + "-" + seq++, ts, null, 0, b.id()));
                } else {
                    beacons.add(new Ledger.Beacon("impression", "i-" + thread + "-" + seq++, ts, "adv-" + (1 + rnd.nextInt(5)),
                            1000 + rnd.nextInt(5000), null));
                }
            }
            List<String> json = beacons.stream().map(Ledger.Beacon::json).toList();
            ledger.sent(json.size());
            Delivery d;
            try {
                d = client.post(json).get(0);
            } catch (InterruptedException e) {
                return;
            }
            book(beacons, d);
            lines += beacons.size();
            long due = started + (long) (lines * 1e9 / ratePerThread);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void book(List<Ledger.Beacon> beacons, Delivery d) {
        requests.incrementAndGet();
        if (!d.retried().isEmpty()) {
            long now = System.nanoTime();
            firstPushback.compareAndSet(0, now - d.totalNanos());
            lastPushback.accumulateAndGet(now - d.lastNanos(), Math::max);
            synchronized (statuses) {
                d.retried().forEach(s -> statuses.merge(s, 1L, Long::sum));
            }
        }
        if (!d.answered()) {
            givenUp.incrementAndGet();
            lastError = d.error();
            beacons.forEach(ledger::unknown);
            return;
        }
        Set<Integer> bad = new HashSet<>();
        d.rejected().forEach(r -> bad.add(r.line()));
        rejected.addAndGet(bad.size());
        for (int i = 0; i < beacons.size(); i++) {
            if (!bad.contains(i)) {
                ledger.acknowledge(beacons.get(i));
            }
        }
    }

    /** Stops the senders after their request in flight (which may be waiting out a fault). */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(Duration.ofMinutes(6).toMillis());
        }
    }

    Map<Integer, Long> retriedStatuses() {
        synchronized (statuses) {
            return new TreeMap<>(statuses);
        }
    }

    long requests() {
        return requests.get();
    }

    long givenUp() {
        return givenUp.get();
    }

    long rejected() {
        return rejected.get();
    }

    String lastError() {
        return lastError;
    }

    /** nanoTime of the start of the first request that was pushed back, 0 if none was. */
    long firstPushbackNanos() {
        return firstPushback.get();
    }

    /** nanoTime of the start of the last answered attempt after a push-back, 0 if none. */
    long lastPushbackNanos() {
        return lastPushback.get();
    }
}
