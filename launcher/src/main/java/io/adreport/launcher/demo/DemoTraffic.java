package io.adreport.launcher.demo;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo traffic simulator: an ad network's beacons posted over HTTP to the ingest endpoint,
 * exactly as a real client would, so that what the dashboard shows has taken the real path.
 *
 * <p>At start-up it back-fills the previous {@link DemoOptions#backfillDays()} UTC days (a bounded
 * number of beacons per day, shaped by the daily curve, posted as fast as the ingest takes them)
 * so that the nightly reconcile has days to correct and the dashboard shows reconciled days beside
 * live ones. Then, every {@link #TICK}, it posts the beacons owed since the previous tick at the
 * configured rate times the daily curve. What it sends follows from the seed and the clock:
 * back-filled beacons have ids made from the seed and the day, so a restart re-sends identical
 * beacons and the ingest counts them as duplicates instead of twice; live ids carry the start
 * time, so they never collide with an earlier run's.
 *
 * <p>Concurrency: one daemon thread ("adreport-demo") owns the generators, the tick state and the
 * HTTP client; batches go out one at a time, in order, which is what keeps a click behind its
 * impression. {@link #stats()} is readable from any thread. Failure behaviour: nothing is thrown
 * out of the thread; failed deliveries are retried by {@link IngestClient} and then counted as
 * errors, and an unexpected exception is counted and logged. If the ingest is slow, the debt of
 * owed beacons is capped at {@link #MAX_CATCH_UP} of traffic, so a stall is followed by a short
 * burst rather than a flood. Logging: at most one line per minute.
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
    private final IngestClient client;
    private final BeaconGenerator live;
    /** True once the back-fill has been posted in full; false if it was cut short (close, failure). */
    private final CompletableFuture<Boolean> backfillDone = new CompletableFuture<>();
    private final Object lifecycle = new Object();
    private ScheduledExecutorService executor; // guarded by lifecycle
    private boolean closed;                    // guarded by lifecycle

    // Owned by the demo thread.
    private Instant lastTick;
    private double owed;
    private Instant nextLog;
    private DemoStats.Snapshot loggedAt = DemoStats.Snapshot.ZERO;
    private Instant loggedSince;

    private DemoTraffic(URI ingestUrl, DemoOptions options, Clock clock, IngestClient.Sleeper sleeper) {
        this.options = Objects.requireNonNull(options, "options");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.client = new IngestClient(Objects.requireNonNull(ingestUrl, "ingestUrl"), sleeper, clock, stats);
        String runTag = Long.toString(clock.millis() / 1000, 36);
        this.live = new BeaconGenerator(AdNetwork.DEFAULT, new SplittableRandom(options.seed()), "l" + runTag + "-",
                options.duplicateRate(), options.lateRate(), options.malformedRate());
    }

    /**
     * Starts the simulator on its own daemon thread: back-fill first, then live traffic until
     * {@link #close()}.
     *
     * @param ingestUrl the ingest's base URL, such as {@code http://localhost:8081}; beacons go to
     *                  {@code /v1/events} under it
     */
    public static DemoTraffic start(URI ingestUrl, DemoOptions options, Clock clock) {
        return start(ingestUrl, options, clock, IngestClient.Sleeper.REAL);
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
            executor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "adreport-demo");
                t.setDaemon(true);
                return t;
            });
            // One thread: the tick never overlaps the back-fill or itself.
            executor.execute(this::backfill);
            executor.scheduleWithFixedDelay(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Posts the previous days' traffic, oldest day first. Never throws. */
    void backfill() {
        try {
            Instant now = clock.instant();
            LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
            for (int back = options.backfillDays(); back >= 1; back--) {
                backfillDay(today.minusDays(back), now);
            }
            if (options.backfillDays() > 0) {
                String days = options.backfillDays() == 1 ? "day" : options.backfillDays() + " days";
                log(clock.instant(), "demo traffic: back-filled " + stats.backfilled().sum() + " beacons for the previous "
                        + days + " (" + stats.snapshot() + ")");
            }
            backfillDone.complete(true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            unexpected(e);
        } finally {
            backfillDone.complete(false); // no-op when it finished
        }
    }

    private void backfillDay(LocalDate day, Instant now) throws InterruptedException {
        // Its own generator, seeded by the seed and the day: the day's beacons do not depend on
        // when the simulator starts, so a restart re-sends the same ones.
        BeaconGenerator g = new BeaconGenerator(AdNetwork.DEFAULT,
                new SplittableRandom(AdNetwork.mix64(options.seed() ^ AdNetwork.mix64(day.toEpochDay()))),
                "b" + day.format(DateTimeFormatter.BASIC_ISO_DATE) + "-",
                options.duplicateRate(), options.lateRate(), options.malformedRate());
        int[] perHour = TrafficCurve.hourlyShares(options.backfillPerDay(), day);
        Instant hour = day.atStartOfDay().toInstant(ZoneOffset.UTC);
        for (int h = 0; h < 24; h++, hour = hour.plus(Duration.ofHours(1))) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("closed during the back-fill");
            }
            send(g.batch(hour, hour.plus(Duration.ofHours(1)), perHour[h]), true);
        }
        // Clicks, conversions and late beacons that fall after midnight, but never after the present.
        Instant dayEnd = hour;
        Instant cutoff = now.isBefore(dayEnd.plus(BeaconGenerator.MAX_LATENESS)) ? now : dayEnd.plus(BeaconGenerator.MAX_LATENESS);
        if (cutoff.isAfter(dayEnd)) {
            send(g.batch(dayEnd, cutoff, 0), true);
        }
        g.discardHeld();
    }

    /** Posts the live traffic owed since the previous tick. Never throws. */
    void tick() {
        try {
            Instant now = clock.instant();
            if (lastTick == null) {
                lastTick = now;
                nextLog = now.plus(LOG_INTERVAL);
                loggedSince = now;
                loggedAt = stats.snapshot();
                return;
            }
            if (now.isAfter(lastTick)) {
                Duration elapsed = Duration.between(lastTick, now);
                double perSecond = options.rate() * TrafficCurve.multiplier(lastTick.plus(elapsed.dividedBy(2)));
                double cap = Math.max(1, perSecond * MAX_CATCH_UP.toSeconds());
                owed = Math.min(owed + perSecond * elapsed.toNanos() / 1e9, cap);
                int budget = (int) owed;
                owed -= budget;
                Instant from = elapsed.compareTo(MAX_CATCH_UP) > 0 ? now.minus(MAX_CATCH_UP) : lastTick;
                lastTick = now;
                send(live.batch(from, now, budget), false);
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

    private void send(BeaconGenerator.Batch batch, boolean backfill) throws InterruptedException {
        List<String> lines = batch.lines();
        stats.malformed().add(batch.malformed());
        client.post(lines); // in requests within the ingest's size limits
        if (backfill) {
            stats.backfilled().add(lines.size());
        }
    }

    private void logThroughput(Instant now) {
        DemoStats.Snapshot current = stats.snapshot();
        DemoStats.Snapshot delta = current.minus(loggedAt);
        double seconds = Math.max(1, Duration.between(loggedSince, now).toSeconds());
        String error = delta.errors() > 0 && client.lastError() != null ? "; last error: " + client.lastError() : "";
        log(now, String.format("demo traffic: %.1f beacons/s over the last %d s (%s)%s",
                delta.sent() / seconds, (long) seconds, delta, error));
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
