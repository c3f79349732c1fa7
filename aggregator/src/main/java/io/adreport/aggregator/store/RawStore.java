package io.adreport.aggregator.store;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.schema.event.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The raw-event store: every valid event is written once, durably, before its request is
 * answered, and only a first write is counted.
 *
 * <p>Group commit: requests enqueue their events; {@code writerThreads} writers each take the
 * events of as many queued requests as fit in {@code batchMax} and commit them together with
 * one multi-get and one multi-put ({@link GroupCommit}). Several writers commit in parallel,
 * because one batch keeps one region-server handler busy. (A benchmark's ceiling swaps in
 * {@link PutOnlyCommit}: the same queue and writers, plain Puts only.)
 *
 * <p>Back-pressure: the queue is bounded in events by a semaphore; {@link #submit} waits up to
 * the block limit for permits and then throws {@link Overloaded} (429) having stored nothing.
 * Permits return when the request's events are answered.
 *
 * <p>Between group commits, and every 50 ms while idle, a writer checks the rows whose earlier
 * write had an unknown outcome ({@link GroupCommit#settleInDoubt}, due rows only, one writer at
 * a time).
 *
 * <p>Shutdown: {@link #close()} refuses new requests, lets the writers empty the queue, and
 * joins them, so that every admitted request is answered; then rows still in doubt are checked
 * once more.
 */
public final class RawStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RawStore.class);

    /** A request's events, waiting for a writer. */
    record Submission(List<Event> events, CompletableFuture<List<Outcome>> done, long enqueuedNanos) {
    }

    private final Consumer<List<Submission>> commit;
    private final Runnable between;
    private final Runnable afterWriters;
    private final AggregatorMetrics metrics;
    private final int batchMax;
    private final int queueEvents;
    private final Semaphore permits;
    private final BlockingQueue<Submission> queue = new LinkedBlockingQueue<>();
    private final List<Thread> writers = new ArrayList<>();
    private volatile boolean accepting = true;

    public RawStore(GroupCommit commit, AggregatorMetrics metrics, int writerThreads, int batchMax, int queueEvents) {
        this(commit::commit, () -> commit.settleInDoubt(false), commit::drain, metrics, writerThreads, batchMax, queueEvents);
    }

    /** The benchmark-only ceiling: the same queue and writers, each group stored by plain Puts. */
    public RawStore(PutOnlyCommit commit, AggregatorMetrics metrics, int writerThreads, int batchMax, int queueEvents) {
        this(commit::commit, () -> { }, () -> { }, metrics, writerThreads, batchMax, queueEvents);
    }

    private RawStore(Consumer<List<Submission>> commit, Runnable between, Runnable afterWriters, AggregatorMetrics metrics,
                     int writerThreads, int batchMax, int queueEvents) {
        this.commit = commit;
        this.between = between;
        this.afterWriters = afterWriters;
        this.metrics = metrics;
        this.batchMax = batchMax;
        this.queueEvents = queueEvents;
        this.permits = new Semaphore(queueEvents);
        for (int i = 0; i < writerThreads; i++) {
            Thread t = new Thread(this::runWriter, "adreport-raw-writer-" + i);
            t.setDaemon(true);
            writers.add(t);
            t.start();
        }
    }

    /**
     * Admits {@code events} for storage, waiting up to {@code blockNanos} for queue space.
     *
     * @return completes with one outcome per event, in order, or exceptionally with
     *         {@link StoreUnavailable}
     */
    public CompletableFuture<List<Outcome>> submit(List<Event> events, long blockNanos) throws Overloaded, InterruptedException {
        if (events.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        if (!accepting) {
            return CompletableFuture.failedFuture(new StoreUnavailable("shutting down", null));
        }
        int need = Math.min(events.size(), queueEvents);
        if (!permits.tryAcquire(need, blockNanos, TimeUnit.NANOSECONDS)) {
            throw new Overloaded("raw-store queue full");
        }
        CompletableFuture<List<Outcome>> done = new CompletableFuture<>();
        done.whenComplete((r, e) -> permits.release(need));
        queue.add(new Submission(List.copyOf(events), done, System.nanoTime()));
        return done;
    }

    /** Events queued and not yet taken by a writer. */
    public int queued() {
        return queueEvents - permits.availablePermits();
    }

    private void runWriter() {
        List<Submission> batch = new ArrayList<>();
        while (true) {
            Submission first;
            try {
                first = queue.poll(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (first == null) {
                if (!accepting && queue.isEmpty()) {
                    return;
                }
                between(); // idle: rows in doubt are still checked
                continue;
            }
            batch.clear();
            batch.add(first);
            int events = first.events().size();
            Submission next;
            while (events < batchMax && (next = queue.poll()) != null) {
                batch.add(next);
                events += next.events().size();
            }
            long now = System.nanoTime();
            for (Submission s : batch) {
                metrics.queueWaitSeconds.observeNanos(now - s.enqueuedNanos());
            }
            try {
                commit.accept(batch);
            } catch (RuntimeException e) {
                LOG.error("group commit failed unexpectedly", e);
                for (Submission s : batch) {
                    s.done().completeExceptionally(new StoreUnavailable("raw store failed: " + e, e));
                }
            }
            between();
        }
    }

    private void between() {
        try {
            between.run();
        } catch (RuntimeException e) {
            LOG.error("checking raw rows in doubt failed unexpectedly", e);
        }
    }

    @Override
    public void close() {
        accepting = false;
        for (Thread t : writers) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        afterWriters.run();
    }
}
