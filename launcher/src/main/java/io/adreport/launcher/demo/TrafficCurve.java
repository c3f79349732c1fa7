package io.adreport.launcher.demo;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * The daily traffic curve: a smooth wave over the UTC day, lowest at 08:00 (half the average) and
 * highest at 20:00 (one and a half times the average), averaging exactly 1 over a day so that the
 * configured rate is the daily mean. Pure functions.
 */
final class TrafficCurve {
    static final double AMPLITUDE = 0.5;
    private static final double PEAK_HOUR = 20;

    private TrafficCurve() {
    }

    /** Traffic at this instant relative to the daily average. */
    static double multiplier(Instant t) {
        double secondOfDay = Math.floorMod(t.getEpochSecond(), 86_400L) + t.getNano() / 1e9;
        double hours = secondOfDay / 3600;
        return 1 + AMPLITUDE * Math.cos(2 * Math.PI * (hours - PEAK_HOUR) / 24);
    }

    /**
     * Splits a day's beacons over its 24 UTC hours along the curve, by largest remainder, so the
     * parts add up to exactly {@code total}.
     */
    static int[] hourlyShares(int total, LocalDate day) {
        long dayStart = day.atStartOfDay().toEpochSecond(ZoneOffset.UTC);
        double[] weight = new double[24];
        double sum = 0;
        for (int h = 0; h < 24; h++) {
            weight[h] = multiplier(Instant.ofEpochSecond(dayStart + h * 3600L + 1800));
            sum += weight[h];
        }
        int[] share = new int[24];
        double[] remainder = new double[24];
        int assigned = 0;
        for (int h = 0; h < 24; h++) {
            double exact = total * weight[h] / sum;
            share[h] = (int) Math.floor(exact);
            remainder[h] = exact - share[h];
            assigned += share[h];
        }
        while (assigned < total) {
            int best = 0;
            for (int h = 1; h < 24; h++) {
                if (remainder[h] > remainder[best]) {
                    best = h;
                }
            }
            share[best]++;
            remainder[best] = -1;
            assigned++;
        }
        return share;
    }
}
