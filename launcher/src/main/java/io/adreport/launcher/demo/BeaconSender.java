package io.adreport.launcher.demo;

import io.adreport.client.Delivery;
import io.adreport.client.IngestClient;
import io.adreport.client.RetryPolicy;
import java.net.URI;
import java.time.Clock;
import java.util.List;

/**
 * Posts the simulator's beacons through the one {@link IngestClient} and books every answer in
 * {@link DemoStats}.
 *
 * <p>Retries are the client's {@link RetryPolicy} (Retry-After honoured, bounded back-off,
 * re-sent with the same event ids), bounded here at {@link #ATTEMPTS} attempts a request: the
 * simulator is a demo, so a request that still fails after about 8 s of back-off is counted as
 * errors (with the reason kept in {@link #lastError()}) and the traffic goes on. Waiting blocks
 * the calling thread, which is the back-pressure: the simulator produces no new traffic while the
 * ingest asks it to wait.
 *
 * <p>Concurrency: one caller thread at a time; {@code lastError} is volatile for readers.
 */
final class BeaconSender {
    /** Attempts per request: five retries, the last after 4 s of back-off without Retry-After. */
    static final int ATTEMPTS = 6;
    static final RetryPolicy POLICY = RetryPolicy.DEFAULT.withMaxAttempts(ATTEMPTS);

    private final IngestClient client;
    private final DemoStats stats;
    private final boolean backfill;
    private volatile String lastError;

    /** @param backfill the lines this sender posts are also counted in {@link DemoStats#backfilled()}, request by request */
    BeaconSender(URI ingestUrl, IngestClient.Sleeper sleeper, Clock clock, DemoStats stats, boolean backfill) {
        // A retry is booked when its wait begins, so the live stats show a sender that is waiting.
        this.client = new IngestClient(ingestUrl, POLICY, clock, d -> {
            stats.retries().increment();
            sleeper.sleep(d);
        });
        this.stats = stats;
        this.backfill = backfill;
    }

    BeaconSender(URI ingestUrl, IngestClient.Sleeper sleeper, Clock clock, DemoStats stats) {
        this(ingestUrl, sleeper, clock, stats, false);
    }

    URI endpoint() {
        return client.endpoint();
    }

    /** The reason of the most recent error, or null. */
    String lastError() {
        return lastError;
    }

    /**
     * Delivers a batch (in requests within the ingest's size limits, see {@link IngestClient#post})
     * and books the answers. Each line is counted in {@code sent} once, however many attempts its
     * request takes. Only an interrupt ends it early; the request in flight is then counted as
     * errors (the ingest may or may not have stored it) and the rest is not sent.
     */
    void post(List<String> lines) throws InterruptedException {
        client.post(lines, this::book);
    }

    private void book(Delivery d) {
        stats.sent().add(d.lines());
        if (backfill) {
            stats.backfilled().add(d.lines());
        }
        if (!d.answered()) {
            stats.errors().add(d.lines());
            lastError = d.error();
            return;
        }
        stats.accepted().add(d.accepted());
        stats.duplicates().add(d.duplicates());
        stats.rejected().add(d.rejected().size());
        long unaccounted = d.lines() - d.accepted() - d.duplicates() - d.rejected().size();
        if (unaccounted != 0) {
            stats.errors().add(Math.max(0, unaccounted));
            lastError = "ingest accounted for " + (d.lines() - unaccounted) + " of " + d.lines() + " beacons";
        }
    }
}
