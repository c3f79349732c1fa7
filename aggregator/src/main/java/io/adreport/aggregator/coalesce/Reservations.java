package io.adreport.aggregator.coalesce;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The admission side of one {@link CoalescingBuffer}: room that ingest reserves for a request's
 * counter deltas before it stores the request, granted by the rule in the buffer's class comment
 * (waiting cells + open reservations + the new one within {@code maxCells}, or an empty buffer).
 *
 * <p>Concurrency: reservations are granted, released and waited for under {@code lock}; a
 * release or a drain of the buffer ({@link #signalSpace()}) wakes the waiters, which also look
 * again every 50 ms. {@link #reserved()} is read anywhere.
 */
public final class Reservations {
    private final int maxCells;
    /** Distinct cells waiting in the buffer. */
    private final LongSupplier cells;
    /** Whether the buffer's age bound refuses room whatever its size. */
    private final BooleanSupplier tooOld;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition freed = lock.newCondition();
    /** Cells reserved by admitted requests not yet counted; changed under {@code lock}, read anywhere. */
    private final AtomicLong reserved = new AtomicLong();
    /** Reservations waiting for room; guarded by {@code lock}. */
    private int waiting;

    Reservations(int maxCells, LongSupplier cells, BooleanSupplier tooOld) {
        this.maxCells = maxCells;
        this.cells = cells;
        this.tooOld = tooOld;
    }

    /** Cells reserved by requests admitted but not yet counted. */
    public long reserved() {
        return reserved.get();
    }

    /**
     * True while a reservation waits for room and the buffer holds something a drain would free:
     * the flusher drains early instead of waiting for its interval.
     */
    public boolean roomWanted() {
        lock.lock();
        try {
            return waiting > 0 && cells.getAsLong() > 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reserves room for {@code wanted} cells, waiting at most {@code timeoutNanos} for a drain or
     * a release to make it.
     *
     * @param onWait called once if the caller has to wait (to wake the flusher)
     * @return the reservation, to be closed once the request's events are counted; null when no
     *         room was granted in time (the caller answers 429)
     */
    public Room reserve(long wanted, long timeoutNanos, Runnable onWait) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        lock.lock();
        try {
            if (fits(wanted)) {
                return grant(wanted);
            }
            waiting++;
            try {
                onWait.run();
                while (!fits(wanted)) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    freed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
                }
                return grant(wanted);
            } finally {
                waiting--;
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean fits(long wanted) {
        if (tooOld.getAsBoolean()) {
            return false;
        }
        long held = cells.getAsLong() + reserved.get();
        return held + wanted <= maxCells || held == 0;
    }

    private Room grant(long wanted) {
        reserved.addAndGet(wanted);
        return new Room(wanted);
    }

    /** Wakes the reservations waiting for room: the buffer was drained. */
    void signalSpace() {
        lock.lock();
        try {
            freed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Room reserved for one request's counter deltas; closing it (once) releases the room. */
    public final class Room implements AutoCloseable {
        private final long size;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private Room(long size) {
            this.size = size;
        }

        /** Cells reserved. */
        public long size() {
            return size;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                lock.lock();
                try {
                    reserved.addAndGet(-size);
                    freed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }
    }
}
