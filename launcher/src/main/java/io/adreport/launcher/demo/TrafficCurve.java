package io.adreport.launcher.demo;

import java.time.Duration;
import java.time.Instant;

/**
 * The daily traffic curve: a smooth wave over the UTC day, lowest at 08:00 (half the average) and
 * highest at 20:00 (one and a half times the average), averaging exactly 1 over a day so that the
 * configured rate is the daily mean. The back-fill and the live traffic both take their volume
 * from it, so an hour has the same expected number of beacons whichever of the two sent it. Pure
 * functions.
 */
final class TrafficCurve {
    static final double AMPLITUDE = 0.5;
    private static final double PEAK_HOUR = 20;
    private static final double DAY_SECONDS = 86_400;

    private TrafficCurve() {
    }

    /** Traffic at this instant relative to the daily average. */
    static double multiplier(Instant t) {
        return 1 + AMPLITUDE * Math.cos(phase(t));
    }

    /**
     * The curve integrated over {@code [from, to)}, in seconds at the average rate: a beacon rate
     * of {@code r} per second (daily mean) sends {@code r * integral(from, to)} beacons in that
     * window. A whole UTC day integrates to exactly 86,400.
     */
    static double integral(Instant from, Instant to) {
        double seconds = Duration.between(from, to).toNanos() / 1e9;
        double radiansPerSecond = 2 * Math.PI / DAY_SECONDS;
        return seconds + AMPLITUDE * (Math.sin(phase(to)) - Math.sin(phase(from))) / radiansPerSecond;
    }

    /** Where {@code t} falls in the daily wave, in radians from the peak. */
    private static double phase(Instant t) {
        double secondOfDay = Math.floorMod(t.getEpochSecond(), 86_400L) + t.getNano() / 1e9;
        return 2 * Math.PI * (secondOfDay / 3600 - PEAK_HOUR) / 24;
    }
}
