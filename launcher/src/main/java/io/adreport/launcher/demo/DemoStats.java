package io.adreport.launcher.demo;

import java.util.concurrent.atomic.LongAdder;

/**
 * Running totals of the demo simulator, in beacons (lines), updated by its sender thread and read
 * by anyone. Once the ingest has answered every batch:
 * {@code sent = accepted + duplicates + rejected + errors}.
 */
public final class DemoStats {
    private final LongAdder sent = new LongAdder();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder backfilled = new LongAdder();
    private final LongAdder malformed = new LongAdder();

    /** Beacons handed to the ingest endpoint (each counted once, however often its batch was retried). */
    public LongAdder sent() {
        return sent;
    }

    /** Beacons the ingest stored and counted. */
    public LongAdder accepted() {
        return accepted;
    }

    /** Beacons the ingest acknowledged as already stored. */
    public LongAdder duplicates() {
        return duplicates;
    }

    /** Beacons the ingest refused as invalid. */
    public LongAdder rejected() {
        return rejected;
    }

    /** Beacons that could not be delivered (connection failures, 5xx after retries, unexpected answers). */
    public LongAdder errors() {
        return errors;
    }

    /** Requests repeated after a 429, a 5xx or an I/O failure. */
    public LongAdder retries() {
        return retries;
    }

    /** Beacons sent by the start-up back-fill (included in {@link #sent()}). */
    public LongAdder backfilled() {
        return backfilled;
    }

    /** Beacons made invalid on purpose (included in {@link #sent()}); the ingest should reject exactly these. */
    public LongAdder malformed() {
        return malformed;
    }

    public Snapshot snapshot() {
        return new Snapshot(sent.sum(), accepted.sum(), duplicates.sum(), rejected.sum(), errors.sum(),
                retries.sum(), backfilled.sum(), malformed.sum());
    }

    /** The totals at one moment; {@link #minus} gives the traffic of an interval. */
    public record Snapshot(long sent, long accepted, long duplicates, long rejected, long errors,
                           long retries, long backfilled, long malformed) {
        public Snapshot {
            if (sent < 0 || accepted < 0 || duplicates < 0 || rejected < 0 || errors < 0
                    || retries < 0 || backfilled < 0 || malformed < 0) {
                throw new IllegalArgumentException("counts must not be negative");
            }
        }

        public static final Snapshot ZERO = new Snapshot(0, 0, 0, 0, 0, 0, 0, 0);

        public Snapshot minus(Snapshot earlier) {
            return new Snapshot(sent - earlier.sent, accepted - earlier.accepted, duplicates - earlier.duplicates,
                    rejected - earlier.rejected, errors - earlier.errors, retries - earlier.retries,
                    backfilled - earlier.backfilled, malformed - earlier.malformed);
        }

        @Override
        public String toString() {
            return "sent " + sent + ", accepted " + accepted + ", duplicates " + duplicates + ", rejected " + rejected
                    + ", errors " + errors + ", retries " + retries;
        }
    }
}
