package io.adreport.aggregator.store;

/** What the raw store did with one valid event. */
public enum Outcome {
    /** First write of its identity: stored and counted. */
    STORED,
    /** Its identity was already stored: acknowledged, not counted. */
    DUPLICATE
}
