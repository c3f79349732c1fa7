package io.adreport.aggregator.flush;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The daemon thread of a periodic flush ({@link CoalescedCounters}' counters, the spend rows):
 * runs {@code flush} once per interval, or as soon as {@code due} holds, e.g. a bound on what
 * waits in memory is reached. Writers that reach such a bound call {@link #wakeUp()}; without
 * it, {@code due} is still looked at every 100 ms. The interval is counted from the start of one
 * flush to the start of the next. A flush that throws anything, an {@link Error} as much as a
 * {@link RuntimeException}, is handed to {@code onError} and the thread goes on: a thread that
 * died of an {@code AssertionError} or a {@code LinkageError} would leave the counters unflushed
 * without a word, the buffer full and ingest refused until its clients gave up. (Out of heap, every
 * {@code bin/adreport} process exits instead: {@code -XX:+ExitOnOutOfMemoryError}.)
 *
 * <p>The owner serializes its flushes (the thread's and its own {@code flushNow}) itself; this
 * class only decides when the thread flushes, and stops it.
 */
public final class FlushThread {
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final long intervalNanos;
    private final BooleanSupplier due;
    private final Runnable flush;
    private final Consumer<Throwable> onError;
    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition wake = wakeLock.newCondition();
    private final Thread thread;
    private volatile boolean running = true;

    /** Starts the thread; the owner creates it last in its constructor, once {@code flush} may run. */
    public FlushThread(String name, Duration interval, BooleanSupplier due, Runnable flush,
                       Consumer<Throwable> onError) {
        this.intervalNanos = interval.toNanos();
        this.due = due;
        this.flush = flush;
        this.onError = onError;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Makes the thread look at {@code due} now rather than at its next poll. */
    public void wakeUp() {
        wakeLock.lock();
        try {
            wake.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    /**
     * Stops the thread: it starts no flush after this. With {@code interrupt}, a flush it is in is
     * interrupted; without, it finishes. Waits up to {@code wait} for the thread to end (zero: not at all).
     */
    public void stop(Duration wait, boolean interrupt) {
        running = false;
        if (interrupt) {
            thread.interrupt();
        } else {
            wakeUp();
        }
        if (wait.isZero()) {
            return;
        }
        try {
            thread.join(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long next = System.nanoTime() + intervalNanos;
        while (running) {
            wakeLock.lock();
            try {
                long wait = next - System.nanoTime();
                while (running && wait > 0 && !due.getAsBoolean()) {
                    wake.awaitNanos(Math.min(wait, POLL_NANOS));
                    wait = next - System.nanoTime();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                wakeLock.unlock();
            }
            if (!running) {
                return;
            }
            next = System.nanoTime() + intervalNanos;
            try {
                flush.run();
            } catch (Throwable e) { // see the class comment: the thread outlives what a flush throws
                onError.accept(e);
            }
        }
    }
}
