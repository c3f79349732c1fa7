package io.adreport.launcher.demo;

import io.adreport.client.IngestClient;
import io.adreport.schema.threads.DaemonThreads;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo traffic simulator: an ad network's beacons posted over HTTP to the ingest endpoint,
 * exactly as a real client would, so that what the dashboard shows has taken the real path.
 *
 * <p>At start-up it back-fills today up to the start and the previous
 * {@link DemoOptions#backfillDays()} UTC days at the live traffic's volume (see {@link Backfill}),
 * posted as fast as the ingest takes them, so that the dashboard shows whole days whose chart runs
 * on into the live hour without a step, the nightly reconcile has days to correct, and reconciled
 * days show beside the live one. The live traffic does not wait for it: from the start, every
 * {@link #TICK} it posts the beacons owed since the previous tick at the configured rate times the
 * daily curve, so the dashboard is live at once while the history fills in behind it. What it
 * sends follows from the seed and the clock: back-filled beacons have ids made from the seed and
 * the day, so a restart re-sends identical beacons and the ingest counts them as duplicates
 * instead of twice; live ids carry the start time, so they never collide with an earlier run's.
 *
 * <p>Concurrency: two daemon threads ("adreport-demo"), each posting one request at a time, in
 * order, which is what keeps a click behind its impression. The tick task owns the live
 * generator, the tick state and its HTTP client; the back-fill task owns the back-fill's
 * generators and its own client, and hands today's generator (with the clicks and late
 * impressions due after the start) to the tick task through {@link #carryOver} when it is done
 * with it. They share only {@link DemoStats}, which is readable from any thread. Failure
 * behaviour: nothing is thrown out of the threads; failed deliveries are retried by
 * {@link BeaconSender} and then counted as errors, and an unexpected exception is counted and
 * logged. If the ingest is slow, the debt of owed live beacons is capped at {@link #MAX_CATCH_UP}
 * of traffic, so a stall is followed by a short burst rather than a flood. Logging: at most one
 * line per minute, and one when the back-fill is done.
 */
public final class DemoTraffic implements AutoCloseable {
    public static final Duration TICK = Duration.ofMillis(250);
    /** The longest stretch of traffic one tick makes up for after the ingest or the clock stalled. */
    static final Duration MAX_CATCH_UP = Duration.ofSeconds(5);
    static final Duration LOG_INTERVAL = Duration.ofMinutes(1);
    static final Duration CLOSE_GRACE = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(DemoTraffic.class);

    private final DemoOptions options;
    private final Clock clock;
    private final DemoStats stats = new DemoStats();
    private final BeaconSender client;
    private final BeaconSender backfillClient;
    private final BeaconGenerator live;
    private final CapGate gate;
    /** Today's back-fill generator, handed to the tick task while it holds beacons due after the start. */
    private final AtomicReference<BeaconGenerator> carryOver = new AtomicReference<>();
    /** True once the back-fill has been posted in full; false if it was cut short (close, failure). */
    private final CompletableFuture<Boolean> backfillDone = new CompletableFuture<>();
    private final Object lifecycle = new Object();
    private ScheduledExecutorService executor; // guarded by lifecycle
    private boolean closed;                    // guarded by lifecycle

    // Owned by the tick task (set before it is first scheduled).
    private Instant lastTick;
    private double owed;
    private Instant nextLog;
    private DemoStats.Snapshot loggedAt = DemoStats.Snapshot.ZERO;
    private Instant loggedSince;

    private DemoTraffic(URI ingestUrl, DemoOptions options, Clock clock, IngestClient.Sleeper sleeper) {
        this(ingestUrl, options, clock, sleeper, CapGate.OPEN);
    }

    private DemoTraffic(URI ingestUrl, DemoOptions options, Clock clock, IngestClient.Sleeper sleeper, CapGate gate) {
        this.gate = gate;
        this.options = Objects.requireNonNull(options, "options");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.client = new BeaconSender(Objects.requireNonNull(ingestUrl, "ingestUrl"), sleeper, clock, stats);
        this.backfillClient = new BeaconSender(ingestUrl, sleeper, clock, stats, true);
        String runTag = Long.toString(clock.millis() / 1000, 36);
        this.live = new BeaconGenerator(AdNetwork.DEFAULT, new SplittableRandom(options.seed()), "l" + runTag + "-",
                options.duplicateRate(), options.lateRate(), options.malformedRate(), gate);
    }

    /**
     * Starts the simulator on its own daemon threads: live traffic from now until {@link #close()},
     * and beside it the back-fill up to now.
     *
     * @param ingestUrl the ingest's base URL, such as {@code http://localhost:8081}; beacons go to
     *                  {@code /v1/events} under it
     */
    public static DemoTraffic start(URI ingestUrl, DemoOptions options, Clock clock) {
        return start(ingestUrl, options, clock, IngestClient.Sleeper.REAL);
    }

    /** As above; the live traffic asks the ad server ({@code POST /v1/serve/ad}) for every slot and fires its beacons. */
    public static DemoTraffic start(URI ingestUrl, DemoOptions options, Clock clock, ServeAdClient server) {
        return startServing(ingestUrl, options, clock, server);
    }

    private static DemoTraffic startServing(URI ingestUrl, DemoOptions options, Clock clock, CapGate gate) {
        DemoTraffic demo = new DemoTraffic(ingestUrl, options, clock, IngestClient.Sleeper.REAL, gate);
        demo.startThread();
        return demo;
    }

    static DemoTraffic start(URI ingestUrl, DemoOptions options, Clock clock, IngestClient.Sleeper sleeper) {
        DemoTraffic demo = create(ingestUrl, options, clock, sleeper);
        demo.startThread();
        return demo;
    }

    /** A simulator that does nothing until its {@link #backfill()} and {@link #tick()} are called (tests). */
    static DemoTraffic create(URI ingestUrl, DemoOptions options, Clock clock, IngestClient.Sleeper sleeper) {
        return new DemoTraffic(ingestUrl, options, clock, sleeper);
    }

    /** The demo advertisers, most active first; the launcher prints a key for the first. */
    public static List<String> advertiserIds() {
        return AdNetwork.DEFAULT.advertiserIds();
    }

    /** The demo publishers, most active first. */
    public static List<String> publisherIds() {
        return AdNetwork.DEFAULT.publisherIds();
    }

    public DemoStats stats() {
        return stats;
    }

    public DemoOptions options() {
        return options;
    }

    /**
     * Waits until the start-up back-fill is over: true if every back-fill batch was handed to the
     * ingest (what it made of them, delivery failures included, is in {@link #stats()}), false if
     * the back-fill was cut short by {@link #close()} or a failure, or is still running when the
     * timeout expires.
     */
    public boolean awaitBackfill(Duration timeout) throws InterruptedException {
        try {
            return backfillDone.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return false; // never completed exceptionally; kept for the compiler
        }
    }

    /**
     * Stops the traffic: a request in flight gets {@link #CLOSE_GRACE} to finish, then a waiting
     * retry or a running back-fill is interrupted. Idempotent.
     */
    @Override
    public void close() {
        ScheduledExecutorService ex;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            ex = executor;
        }
        if (ex == null) {
            backfillDone.complete(false);
            return;
        }
        // Let a request in flight finish (so what was delivered is booked), but do not sit out a
        // long Retry-After or the rest of a big back-fill: interrupt after a short grace period.
        ex.shutdown();
        try {
            if (!ex.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                ex.shutdownNow();
                if (!ex.awaitTermination(5, TimeUnit.SECONDS)) {
                    LOG.warn("demo traffic: sender thread still busy 5 s after close");
                }
            }
        } catch (InterruptedException e) {
            ex.shutdownNow();
            Thread.currentThread().interrupt();
        }
        backfillDone.complete(false); // a back-fill that never ran or was interrupted
        LOG.info("demo traffic stopped: {}", stats.snapshot());
    }

    private void startThread() {
        synchronized (lifecycle) {
            if (closed || executor != null) {
                throw new IllegalStateException("demo traffic already started or closed");
            }
            executor = Executors.newScheduledThreadPool(2, DaemonThreads.named("adreport-demo"));
            // The back-fill and the ticks run side by side; a fixed delay never overlaps a tick with itself.
            Instant start = clock.instant();
            startLive(start);
            executor.execute(() -> backfill(start));
            executor.scheduleWithFixedDelay(this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Back-fills up to the clock's present and starts the live traffic there (tests; one thread). */
    void backfill() {
        Instant now = clock.instant();
        backfill(now);
        if (lastTick == null) {
            startLive(now);
        }
    }

    /** Posts today's traffic up to {@code until}, then the previous days', newest first (see {@link Backfill}). Never throws. */
    private void backfill(Instant until) {
        try {
            long t0 = System.nanoTime();
            Backfill.Result result = new Backfill(options, batch -> send(backfillClient, batch)).run(until);
            if (result != null) {
                carryOver.set(result.carryOver());
                double seconds = (System.nanoTime() - t0) / 1e9;
                long beacons = stats.backfilled().sum();
                String days = switch (options.backfillDays()) {
                    case 0 -> "";
                    case 1 -> " and the previous day";
                    default -> " and the previous " + options.backfillDays() + " days";
                };
                LOG.info(String.format("demo traffic: back-filled %,d beacons for today so far%s in %.1f s (%,.0f/s)",
                        beacons, days, seconds, beacons / Math.max(seconds, 1e-3)));
            }
            backfillDone.complete(true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            stats.errors().increment();
            LOG.warn("demo traffic: the back-fill failed; the live traffic carries on", e);
        } finally {
            backfillDone.complete(false); // no-op when it finished
        }
    }

    /** The live traffic starts at {@code start}: the tick state before the first tick. */
    private void startLive(Instant start) {
        lastTick = start;
        nextLog = start.plus(LOG_INTERVAL);
        loggedSince = start;
        loggedAt = stats.snapshot();
    }

    /** Posts the live traffic owed since the previous tick. Never throws. */
    void tick() {
        try {
            Instant now = clock.instant();
            if (lastTick == null) {
                startLive(now);
                return;
            }
            if (now.isAfter(lastTick)) {
                Duration elapsed = Duration.between(lastTick, now);
                // After a stall only the last MAX_CATCH_UP is owed: a short burst, not a flood.
                Instant from = elapsed.compareTo(MAX_CATCH_UP) > 0 ? now.minus(MAX_CATCH_UP) : lastTick;
                // The same volume as the back-fill gives a window: the rate times the curve's integral
                // over it. The fraction of a beacon left over is carried to the next tick.
                owed += options.rate() * TrafficCurve.integral(from, now);
                int budget = (int) owed;
                owed -= budget;
                lastTick = now;
                BeaconGenerator backfilledToday = carryOver.get();
                if (backfilledToday != null) {
                    // The back-fill's clicks and late impressions that fell due: part of this tick's traffic.
                    BeaconGenerator.Batch due = backfilledToday.batch(from, now, 0);
                    send(client, due);
                    budget = Math.max(0, budget - due.lines().size());
                    if (backfilledToday.held() == 0) {
                        carryOver.set(null);
                    }
                }
                send(client, live.batch(from, now, budget));
            }
            if (!now.isBefore(nextLog)) {
                logThroughput(now);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            unexpected(e);
        }
    }

    private void send(BeaconSender via, BeaconGenerator.Batch batch) throws InterruptedException {
        stats.malformed().add(batch.malformed());
        via.post(batch.lines()); // in requests within the ingest's size limits
    }

    private void logThroughput(Instant now) {
        DemoStats.Snapshot current = stats.snapshot();
        DemoStats.Snapshot delta = current.minus(loggedAt);
        double seconds = Math.max(1, Duration.between(loggedSince, now).toSeconds());
        String lastError = client.lastError() != null ? client.lastError() : backfillClient.lastError();
        String error = delta.errors() > 0 && lastError != null ? "; last error: " + lastError : "";
        String backfilled = delta.backfilled() > 0 ? String.format(" and %,d back-filled", delta.backfilled()) : "";
        String caps = gate instanceof ServeAdClient a ? "; " + a.summary() : "";
        log(now, String.format("demo traffic: %.1f beacons/s over the last %d s%s (%s)%s%s",
                (delta.sent() - delta.backfilled()) / seconds, (long) seconds, backfilled, delta, caps, error));
    }

    private void log(Instant now, String line) {
        LOG.info(line);
        loggedAt = stats.snapshot();
        loggedSince = now;
        nextLog = now.plus(LOG_INTERVAL);
    }

    private void unexpected(Throwable e) {
        stats.errors().increment();
        Instant now = clock.instant();
        if (nextLog == null || !now.isBefore(nextLog)) {
            LOG.warn("demo traffic: unexpected failure, carrying on", e);
            nextLog = now.plus(LOG_INTERVAL);
        }
    }
}
