package io.adreport.benchmarks;

import java.util.Arrays;
import java.util.Random;

/**
 * Zipf-distributed ranks 0..n-1 (rank k drawn with probability proportional to 1/(k+1)^s), by
 * inverse CDF: popular advertisers, campaigns and publishers get most of the traffic.
 */
final class Zipf {
    private final double[] cdf;

    Zipf(int n, double s) {
        cdf = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1 / Math.pow(k + 1, s);
            cdf[k] = sum;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= sum;
        }
    }

    int next(Random random) {
        int i = Arrays.binarySearch(cdf, random.nextDouble());
        return Math.min(cdf.length - 1, i >= 0 ? i : -i - 1);
    }
}
