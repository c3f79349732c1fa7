package io.adreport.aggregator.flush;

import io.adreport.schema.event.Event;

/**
 * Where a newly stored event's counter deltas go: the coalescing buffer and its flusher, or the
 * naive synchronous increments. Called by raw-store writer threads after the event's raw row is
 * durably written, once per event.
 */
public interface CounterWriter extends AutoCloseable {

    /** Counts a newly stored event (cells of closed days are skipped and counted as dropped). */
    void count(Event e, boolean attributed);

    /**
     * Waits up to {@code timeoutNanos} until there is room for more deltas.
     *
     * @return false when there is none (ingest answers 429)
     */
    boolean awaitSpace(long timeoutNanos) throws InterruptedException;

    /** Sends everything counted so far and returns when it is sent (or counted as unapplied). */
    void flushNow();

    /**
     * Stops without sending what is buffered, as a crash would (the nightly job restores those
     * deltas from the raw rows). Nothing buffered by default.
     */
    default void abandon() {
    }

    /** Flushes and stops. */
    @Override
    void close();
}
