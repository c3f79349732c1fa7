package io.adreport.benchmarks.serving;

import java.util.Arrays;

/**
 * wrk 4's coordinated-omission correction, applied to latencies a closed loop recorded, so that a
 * floor measured by {@link ClosedLoop} and an HTTP phase measured by {@code wrk} can be compared
 * either way: both as recorded, or both as wrk reports them.
 *
 * <p>wrk (src/stats.c, {@code stats_correct}) works in whole microseconds: with {@code e =
 * runtime / (requests / connections)} (integer divisions), every recorded latency {@code L >= 2e}
 * adds the samples {@code L - e, L - 2e, ...} that are still above {@code e}: the requests a
 * client sending every {@code e} would have seen waiting behind the slow one. A closed loop
 * records none of them, so its p99 and wrk's are not the same statistic.
 */
public final class WrkCorrection {
    private WrkCorrection() {
    }

    /**
     * The corrected samples, sorted, microseconds.
     *
     * @param recordedMicros every recorded latency in microseconds (any order)
     * @param runtimeMicros the run's duration
     * @param connections the closed loop's clients (wrk's {@code -c})
     */
    public static long[] correct(long[] recordedMicros, long runtimeMicros, int connections) {
        long[] sorted = recordedMicros.clone();
        Arrays.sort(sorted);
        long perConnection = sorted.length / connections;
        if (perConnection == 0) {
            return sorted;
        }
        long e = runtimeMicros / perConnection;
        if (e <= 0) {
            return sorted;
        }
        long added = 0;
        for (long l : sorted) {
            if (l >= 2 * e) {
                added += (l - 1) / e - 1; // m = l - k*e > e for k = 1 .. ceil(l/e) - 2
            }
        }
        long[] out = Arrays.copyOf(sorted, Math.toIntExact(sorted.length + added));
        int at = sorted.length;
        for (long l : sorted) {
            if (l >= 2 * e) {
                for (long m = l - e; m > e; m -= e) {
                    out[at++] = m;
                }
            }
        }
        Arrays.sort(out);
        return out;
    }

    /** The {@code p}-th percentile as wrk gives it: the smallest value with at least p% of the samples at or below it. */
    public static long percentile(long[] sorted, double p) {
        long want = (long) Math.ceil(sorted.length * p / 100.0);
        return sorted[(int) Math.max(0, Math.min(sorted.length - 1, want - 1))];
    }
}
