package io.adreport.launcher.demo;

/**
 * How the demo traffic simulator behaves. Values are checked here, once, with messages that name
 * the option, the rule and the value.
 *
 * @param rate            traffic, beacons per second averaged over a UTC day (the hour-of-day curve
 *                        varies it between half and one and a half times this): the live traffic,
 *                        and the scale of the back-fill, so that the chart runs on without a step
 *                        where the back-fill ends and the live traffic begins; 0 means no traffic
 * @param seed            everything the simulator generates follows from this seed and the clock
 * @param backfillDays    how many previous UTC days to back-fill at start-up besides today so far;
 *                        must stay inside the ingest accept window of 7 days
 * @param backfillLimit   about the most beacons the start-up back-fill posts (0 = no back-fill):
 *                        it bounds how long start-up takes. When back-filling at {@code rate} would
 *                        need more, the back-fill keeps its shape but is scaled down to this many,
 *                        and the chart steps up where the live traffic begins (the simulator logs a
 *                        warning); the defaults are chosen so that this never happens
 * @param duplicateRate   share of beacons that are an identical re-send of a recent beacon
 * @param lateRate        share of impression beacons held back and delivered minutes to hours late
 *                        (after their own clicks, as happens with a slow beacon)
 * @param malformedRate   share of beacons that are invalid on purpose (bad country, negative cost,
 *                        unknown type, missing id, far-future time)
 */
public record DemoOptions(double rate, long seed, int backfillDays, int backfillLimit,
                          double duplicateRate, double lateRate, double malformedRate) {

    /**
     * Small enough that the back-fill at the same scale (up to three days of traffic: the two
     * previous days and today so far) stays within {@link #DEFAULT_BACKFILL_LIMIT}, which a
     * one-machine stack ingests in about a minute.
     */
    public static final double DEFAULT_RATE = 1;
    public static final long DEFAULT_SEED = 42;
    public static final int DEFAULT_BACKFILL_DAYS = 2;
    public static final int DEFAULT_BACKFILL_LIMIT = 300_000;
    public static final double DEFAULT_DUPLICATE_RATE = 0.05;
    public static final double DEFAULT_LATE_RATE = 0.01;
    public static final double DEFAULT_MALFORMED_RATE = 0.005;

    /** Above this one sender thread and one ingest process are the bottleneck, not the demo. */
    public static final double MAX_RATE = 20_000;
    /** One day less than the default ingest accept window, so no back-filled beacon is too old. */
    public static final int MAX_BACKFILL_DAYS = 6;
    public static final int MAX_BACKFILL_LIMIT = 5_000_000;
    public static final double MAX_SHARE = 0.5;

    public DemoOptions {
        if (!(rate >= 0 && rate <= MAX_RATE)) { // also refuses NaN
            throw new IllegalArgumentException("rate must be between 0 and " + (long) MAX_RATE + " beacons/s, got " + rate);
        }
        if (backfillDays < 0 || backfillDays > MAX_BACKFILL_DAYS) {
            throw new IllegalArgumentException("backfillDays must be between 0 and " + MAX_BACKFILL_DAYS + ", got " + backfillDays);
        }
        if (backfillLimit < 0 || backfillLimit > MAX_BACKFILL_LIMIT) {
            throw new IllegalArgumentException("backfillLimit must be between 0 and " + MAX_BACKFILL_LIMIT + ", got " + backfillLimit);
        }
        requireShare("duplicateRate", duplicateRate);
        requireShare("lateRate", lateRate);
        requireShare("malformedRate", malformedRate);
    }

    /**
     * The defaults: 1 beacon/s, seed 42, a back-fill of today so far and the two previous days of
     * at most 300,000 beacons, 5% duplicates, 1% late, 0.5% malformed.
     */
    public static DemoOptions defaults() {
        return new DemoOptions(DEFAULT_RATE, DEFAULT_SEED, DEFAULT_BACKFILL_DAYS, DEFAULT_BACKFILL_LIMIT,
                DEFAULT_DUPLICATE_RATE, DEFAULT_LATE_RATE, DEFAULT_MALFORMED_RATE);
    }

    public DemoOptions withRate(double newRate) {
        return new DemoOptions(newRate, seed, backfillDays, backfillLimit, duplicateRate, lateRate, malformedRate);
    }

    public DemoOptions withSeed(long newSeed) {
        return new DemoOptions(rate, newSeed, backfillDays, backfillLimit, duplicateRate, lateRate, malformedRate);
    }

    public DemoOptions withBackfill(int days, int limit) {
        return new DemoOptions(rate, seed, days, limit, duplicateRate, lateRate, malformedRate);
    }

    public DemoOptions withShares(double duplicates, double late, double malformed) {
        return new DemoOptions(rate, seed, backfillDays, backfillLimit, duplicates, late, malformed);
    }

    private static void requireShare(String name, double value) {
        if (!(value >= 0 && value <= MAX_SHARE)) {
            throw new IllegalArgumentException(name + " must be between 0 and " + MAX_SHARE + ", got " + value);
        }
    }
}
