package io.adreport.aggregator.dayclose;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Lets the day-close watcher wait until every counter write that may have read an older set of
 * closed days has finished. Senders (a whole flush, or the increments of one event in naive mode)
 * hold the shared side while they read the closed days and send; {@link #quiesce()} takes the
 * exclusive side once, which returns only when all senders that started before it are done.
 * Senders that start afterwards read the new closed days.
 */
public final class SendGate {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    public void enter() {
        lock.readLock().lock();
    }

    public void exit() {
        lock.readLock().unlock();
    }

    /** Returns when no send that began before this call is still running. */
    public void quiesce() {
        lock.writeLock().lock();
        lock.writeLock().unlock();
    }
}
