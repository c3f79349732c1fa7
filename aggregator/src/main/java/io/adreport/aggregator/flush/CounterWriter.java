package io.adreport.aggregator.flush;

import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.event.Event;
import java.util.List;

/**
 * Where a newly stored event's counter deltas go: the coalescing buffer and its flusher, or the
 * naive synchronous increments. Called by raw-store writer threads after the event's raw row is
 * durably written, once per event ({@link #count}) or once per group commit ({@link #countAll}).
 */
public interface CounterWriter extends AutoCloseable {

    /** Counts a newly stored event (cells of closed days are skipped and counted as dropped). */
    void count(Event e, boolean attributed);

    /** A newly stored event and whether it carries its join target's dimensions. */
    record Counted(Event event, boolean attributed) {
    }

    /**
     * Counts the newly stored events of one group commit, as {@link #count} of each would; a
     * writer may sum them before they reach shared state.
     */
    default void countAll(List<Counted> events) {
        for (Counted c : events) {
            count(c.event(), c.attributed());
        }
    }

    /**
     * Room held for one request's counter deltas, from admission until its events are counted
     * (or have failed to store). Closing it more than once is harmless.
     */
    @FunctionalInterface
    interface Admission extends AutoCloseable {
        /** Nothing to hold: writers without a bounded buffer. */
        Admission NONE = () -> {
        };

        @Override
        void close();
    }

    /**
     * Reserves room for every delta {@code events} can make, waiting up to {@code timeoutNanos}.
     * Ingest calls it before it stores anything of a request.
     *
     * @return the reservation, to close once the request's outcome is known; null when there is
     *         no room (ingest answers 429). A writer without a bounded buffer holds nothing.
     */
    default Admission admit(List<Event> events, long timeoutNanos) throws InterruptedException {
        return Admission.NONE;
    }

    /**
     * This aggregator's current totals of the rows {@code request} wants, for readers that merge
     * them with the stored counters ({@code LiveCounts}); {@link LiveCounts.Answer#NONE} when the
     * writer keeps none (naive increments are visible once sent).
     *
     * @throws IllegalArgumentException naming the field when the request does not fit the cube
     */
    default LiveCounts.Answer live(LiveCounts.Request request) {
        return LiveCounts.Answer.NONE;
    }

    /** Sends everything counted so far and returns when it is sent (or counted as unapplied); nothing by default. */
    default void flushNow() {
    }

    /**
     * Stops without sending what is buffered, as a crash would (the nightly job restores those
     * deltas from the raw rows). Nothing buffered by default.
     */
    default void abandon() {
    }

    /** Flushes and stops; nothing buffered by default. */
    @Override
    default void close() {
    }
}
