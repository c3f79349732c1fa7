package io.adreport.privacy;

import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.privacy.Deletion;
import io.adreport.schema.privacy.DeletionStep;
import io.adreport.schema.privacy.DeletionStore;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.apache.hadoop.hbase.client.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries privacy deletions through their steps ({@link DeletionStep}), from the state recorded in
 * {@code NS:privacy}: any worker, in any process, resumes any deletion from its recorded step.
 *
 * <ul>
 *   <li>{@code requested → unreadable}: {@link DeviceEraser} slices of {@code privacy.worker.batch}
 *       raw events, back to back, for each hash the device is stored under (the current secret's,
 *       and the previous one's when the deletion was asked for while the secret rotated); then the step is recorded and the device hash forgotten in one
 *       row mutation ({@link DeletionStore#markUnreadable}).</li>
 *   <li>{@code unreadable → compacted}: {@link TargetCompaction} flushes and major-compacts the
 *       recorded regions (raw regions of the rows, the profile row's salt range, the privacy
 *       table), then polls until each one was compacted after the request.</li>
 *   <li>{@code compacted → snapshots-expired → done}: polls until no snapshot of the namespace taken
 *       before the request is left (snapshots are an operator's: the worker never deletes one).</li>
 * </ul>
 *
 * <p><b>Concurrency.</b> One thread ({@code privacy-deletions}) calls {@link #tick}; a tick takes
 * at most {@value #PER_TICK} pending deletions and does one bounded piece of each. {@link #wake}
 * (a new request) cuts a pause short. Several workers (several report API processes) may work on
 * the same deletion: every step is idempotent and a step's time is recorded once.
 *
 * <p><b>Failure.</b> An HBase error fails the tick: counted in
 * {@code adreport_privacy_worker_failures_total}, logged, retried after the pause. Nothing is
 * recorded before the work it records is done.
 */
public final class DeletionWorker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeletionWorker.class);
    static final int PER_TICK = 16;

    private final DeletionStore store;
    private final DeviceEraser eraser;
    private final TargetCompaction compaction;
    private final PrivacyConfig config;
    private final Clock clock;
    private final Metrics.Counter steps;
    private final Metrics.Counter failures;
    private final Object lock = new Object();
    private Thread thread; // guarded by lock
    private boolean woken; // guarded by lock
    private volatile boolean running;

    public DeletionWorker(Connection connection, TableLayout layout, PrivacyConfig config, Clock clock, Metrics metrics) {
        this.store = new DeletionStore(connection, layout);
        this.eraser = new DeviceEraser(connection, layout, config.batch());
        this.compaction = new TargetCompaction(connection, layout.namespace());
        this.config = config;
        this.clock = clock;
        this.steps = metrics.counter("adreport_privacy_steps_total", "Privacy deletion steps reached (unreadable, compacted, ...)");
        this.failures = metrics.counter("adreport_privacy_worker_failures_total",
                "Ticks of the privacy deletion worker that failed (HBase error; retried after privacy.worker.interval.ms)");
    }

    public DeletionStore store() {
        return store;
    }

    /** Starts the worker thread; returns this. */
    public DeletionWorker start() {
        synchronized (lock) {
            if (thread != null) {
                throw new IllegalStateException("already started");
            }
            running = true;
            thread = new Thread(this::run, "privacy-deletions");
            thread.setDaemon(true);
            thread.start();
        }
        return this;
    }

    /** Cuts the current pause short (a new deletion was requested). */
    public void wake() {
        synchronized (lock) {
            woken = true;
            lock.notifyAll();
        }
    }

    private void run() {
        while (running) {
            boolean more;
            try {
                more = tick();
            } catch (IOException | RuntimeException e) {
                failures.inc();
                LOG.warn("privacy deletion tick failed (retried in {} ms): {}", config.interval().toMillis(), e.toString());
                more = false;
            }
            if (!more) {
                pause();
            }
        }
    }

    private void pause() {
        synchronized (lock) {
            long until = System.nanoTime() + config.interval().toNanos();
            while (running && !woken) {
                long left = until - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            woken = false;
        }
    }

    /**
     * One round over the pending deletions; true when some deletion has more work that can be
     * done at once (the caller then ticks again without a pause).
     */
    public boolean tick() throws IOException {
        boolean more = false;
        for (Deletion d : store.pending(PER_TICK)) {
            more |= advance(d);
        }
        return more;
    }

    private boolean advance(Deletion d) throws IOException {
        Instant now = clock.instant();
        switch (d.step()) {
            case REQUESTED -> {
                // Each hash the device is stored under (two while the device secret rotated), in turn:
                // a slice of a hash already erased finds nothing and answers finished at once.
                boolean finished = true;
                for (String hash : d.deviceHashes()) {
                    if (!eraser.slice(hash, (targets, events, cells) -> store.progress(d.id(), targets, events, cells))) {
                        finished = false;
                        break;
                    }
                }
                if (finished) {
                    store.markUnreadable(d.id(), clock.instant());
                    reached(d, DeletionStep.UNREADABLE);
                }
                return true;
            }
            case UNREADABLE -> {
                if (d.compactRequested() == null || now.isAfter(d.compactRequested().plus(config.compactRetry()))) {
                    store.markCompactRequested(d.id(), now); // before the request: a compaction is never older than its record
                    compaction.request(d.targets());
                    return false;
                }
                if (compaction.done(d.targets(), d.compactRequested())) {
                    store.mark(d.id(), DeletionStep.COMPACTED, clock.instant());
                    reached(d, DeletionStep.COMPACTED);
                    return true;
                }
                return false;
            }
            case COMPACTED -> {
                List<String> older = compaction.snapshotsBefore(d.requestedAt());
                if (!older.isEmpty()) {
                    LOG.debug("deletion {} waits for snapshots {}", d.id(), older);
                    return false;
                }
                store.mark(d.id(), DeletionStep.SNAPSHOTS_EXPIRED, now);
                reached(d, DeletionStep.SNAPSHOTS_EXPIRED);
                return true;
            }
            case SNAPSHOTS_EXPIRED -> {
                store.mark(d.id(), DeletionStep.DONE, now);
                reached(d, DeletionStep.DONE);
                return false;
            }
            default -> {
                return false;
            }
        }
    }

    private void reached(Deletion d, DeletionStep step) {
        steps.inc();
        LOG.info("privacy deletion {}: {} ({} raw events rewritten so far)", d.id(), step.label(), d.eventsRewritten());
    }

    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            running = false;
            lock.notifyAll();
            t = thread;
        }
        if (t != null) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
