package io.adreport.aggregator.ingest;

import java.util.List;

/**
 * The answer to {@code POST /v1/events}.
 *
 * @param accepted   events stored for the first time (counted)
 * @param duplicates events whose identity was already stored (acknowledged, not counted)
 * @param rejected   invalid events: position in the body (0-based) and "field: rule"
 */
public record IngestResponse(long accepted, long duplicates, List<Rejection> rejected) {
    public IngestResponse {
        if (accepted < 0 || duplicates < 0) {
            throw new IllegalArgumentException("counts must be >= 0");
        }
        rejected = List.copyOf(rejected);
    }

    /** One invalid event. */
    public record Rejection(int index, String error) {
    }
}
