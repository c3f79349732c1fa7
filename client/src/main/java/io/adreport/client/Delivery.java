package io.adreport.client;

import java.util.List;

/**
 * What became of one request of events after the {@link RetryPolicy}: answered (status 200, with
 * the ingest's counts) or given up (status of the last answer, or -1 when the last attempt got
 * no answer, and the reason).
 *
 * <p>An answered request's events are acknowledged: each is either accepted, a duplicate of one
 * stored before, or listed in {@code rejected}. A request given up may or may not have been
 * stored (an answer can be lost after the ingest stored it): its events are unknown, not lost.
 *
 * @param lines        events in the request
 * @param status       HTTP status of the last attempt, -1 when it got no answer
 * @param accepted     events stored by this request (0 unless answered)
 * @param duplicates   events found already stored (0 unless answered)
 * @param rejected     invalid events: 0-based line in the request and "field: rule"
 * @param attempts     requests sent, the first included
 * @param lastNanos    duration of the last attempt
 * @param totalNanos   from the first attempt to the end of the last, waits included
 * @param error        why it was given up, or null when answered
 * @param retried      the status of each attempt that was retried, in order (-1: no answer)
 */
public record Delivery(int lines, int status, long accepted, long duplicates, List<Rejection> rejected, int attempts,
                       long lastNanos, long totalNanos, String error, List<Integer> retried) {

    public Delivery {
        rejected = List.copyOf(rejected);
        retried = List.copyOf(retried);
    }

    /** One invalid event of an answered request. */
    public record Rejection(int line, String error) {
    }

    /** Whether the ingest answered 200: every event of the request is acknowledged. */
    public boolean answered() {
        return error == null;
    }

    /** Attempts beyond the first. */
    public int retries() {
        return Math.max(0, attempts - 1);
    }
}
