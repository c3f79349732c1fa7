package io.adreport.schema.privacy;

import java.nio.charset.StandardCharsets;

/**
 * The steps of a privacy deletion, in order. Each is recorded once, with its time, in the
 * deletion's row ({@link DeletionStore}); the labels are the API's and frozen.
 */
public enum DeletionStep {
    /** Accepted; the device hash is held in the request row until the next step. */
    REQUESTED("requested"),
    /** Raw events rewritten without device or per-device fields, profile row (and index) deleted. */
    UNREADABLE("unreadable"),
    /** The regions that held the old cells were flushed and major-compacted: no HFile holds them. */
    COMPACTED("compacted"),
    /** No snapshot of the namespace's tables taken before the request is left. */
    SNAPSHOTS_EXPIRED("snapshots-expired"),
    DONE("done");

    private final String label;

    DeletionStep(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Qualifier of the step's time cell: {@code s:} + label. */
    byte[] qualifier() {
        return ("s:" + label).getBytes(StandardCharsets.US_ASCII);
    }

    /** The step after this one, or null after {@link #DONE}. */
    public DeletionStep next() {
        return this == DONE ? null : values()[ordinal() + 1];
    }
}
