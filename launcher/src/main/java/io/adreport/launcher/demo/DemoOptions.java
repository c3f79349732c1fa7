package io.adreport.launcher.demo;

/**
 * How the demo traffic simulator behaves. Values are checked here, once, with messages that name
 * the option, the rule and the value.
 *
 * @param rate            live traffic, beacons per second averaged over a UTC day (the hour-of-day
 *                        curve varies it between about half and one and a half times this); 0 means
 *                        back-fill only
 * @param seed            everything the simulator generates follows from this seed and the clock
 * @param backfillDays    how many previous UTC days to back-fill at start-up (0 = none); must stay
 *                        inside the ingest accept window of 7 days
 * @param backfillPerDay  beacons posted for each back-filled day
 * @param duplicateRate   share of beacons that are an identical re-send of a recent beacon
 * @param lateRate        share of impression beacons held back and delivered minutes to hours late
 *                        (after their own clicks, as happens with a slow beacon)
 * @param malformedRate   share of beacons that are invalid on purpose (bad country, negative cost,
 *                        unknown type, missing id, far-future time)
 */
public record DemoOptions(double rate, long seed, int backfillDays, int backfillPerDay,
                          double duplicateRate, double lateRate, double malformedRate) {

    public static final double DEFAULT_RATE = 20;
    public static final long DEFAULT_SEED = 42;
    public static final int DEFAULT_BACKFILL_DAYS = 2;
    public static final int DEFAULT_BACKFILL_PER_DAY = 3000;
    public static final double DEFAULT_DUPLICATE_RATE = 0.05;
    public static final double DEFAULT_LATE_RATE = 0.01;
    public static final double DEFAULT_MALFORMED_RATE = 0.005;

    /** Above this one sender thread and one ingest process are the bottleneck, not the demo. */
    public static final double MAX_RATE = 20_000;
    /** One day less than the default ingest accept window, so no back-filled beacon is too old. */
    public static final int MAX_BACKFILL_DAYS = 6;
    public static final int MAX_BACKFILL_PER_DAY = 200_000;
    public static final double MAX_SHARE = 0.5;

    public DemoOptions {
        if (!(rate >= 0 && rate <= MAX_RATE)) { // also refuses NaN
            throw new IllegalArgumentException("rate must be between 0 and " + (long) MAX_RATE + " beacons/s, got " + rate);
        }
        if (backfillDays < 0 || backfillDays > MAX_BACKFILL_DAYS) {
            throw new IllegalArgumentException("backfillDays must be between 0 and " + MAX_BACKFILL_DAYS + ", got " + backfillDays);
        }
        if (backfillPerDay < 0 || backfillPerDay > MAX_BACKFILL_PER_DAY) {
            throw new IllegalArgumentException("backfillPerDay must be between 0 and " + MAX_BACKFILL_PER_DAY + ", got " + backfillPerDay);
        }
        requireShare("duplicateRate", duplicateRate);
        requireShare("lateRate", lateRate);
        requireShare("malformedRate", malformedRate);
    }

    /** The defaults: 20 beacons/s, seed 42, two back-filled days of 3,000 beacons, 5% duplicates, 1% late, 0.5% malformed. */
    public static DemoOptions defaults() {
        return new DemoOptions(DEFAULT_RATE, DEFAULT_SEED, DEFAULT_BACKFILL_DAYS, DEFAULT_BACKFILL_PER_DAY,
                DEFAULT_DUPLICATE_RATE, DEFAULT_LATE_RATE, DEFAULT_MALFORMED_RATE);
    }

    public DemoOptions withRate(double newRate) {
        return new DemoOptions(newRate, seed, backfillDays, backfillPerDay, duplicateRate, lateRate, malformedRate);
    }

    public DemoOptions withSeed(long newSeed) {
        return new DemoOptions(rate, newSeed, backfillDays, backfillPerDay, duplicateRate, lateRate, malformedRate);
    }

    public DemoOptions withBackfill(int days, int perDay) {
        return new DemoOptions(rate, seed, days, perDay, duplicateRate, lateRate, malformedRate);
    }

    public DemoOptions withShares(double duplicates, double late, double malformed) {
        return new DemoOptions(rate, seed, backfillDays, backfillPerDay, duplicates, late, malformed);
    }

    private static void requireShare(String name, double value) {
        if (!(value >= 0 && value <= MAX_SHARE)) {
            throw new IllegalArgumentException(name + " must be between 0 and " + MAX_SHARE + ", got " + value);
        }
    }
}
