package io.adreport.benchmarks;

import java.util.Arrays;
import java.util.Locale;

/**
 * {@link BeaconVerifyBenchmark}'s two operations measured interleaved, round after round, so that
 * a machine whose load drifts slows both alike: each round times 20,000 unsigned beacons and then
 * 20,000 signed ones; the medians over the rounds are printed, with the median per-beacon cost of
 * the verification (signed minus unsigned time, same round).
 *
 * <p>Run: {@code mvn -B -o -q package -pl benchmarks -am -DskipTests && java -cp
 * "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" io.adreport.benchmarks.BeaconVerifyHarness [rounds]}
 */
public final class BeaconVerifyHarness {
    private static final int PER_ROUND = 20_000;

    private BeaconVerifyHarness() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        BeaconVerifyBenchmark b = new BeaconVerifyBenchmark();
        b.setUp();
        long sink = 0;
        for (int i = 0; i < 5 * PER_ROUND; i++) { // warm-up of both paths
            sink += b.unsigned().id().length() + b.signed().id().length();
        }
        double[] unsigned = new double[rounds];
        double[] signed = new double[rounds];
        double[] costMicros = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < PER_ROUND; i++) {
                sink += b.unsigned().id().length();
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < PER_ROUND; i++) {
                sink += b.signed().id().length();
            }
            long t2 = System.nanoTime();
            unsigned[r] = PER_ROUND / ((t1 - t0) / 1e9);
            signed[r] = PER_ROUND / ((t2 - t1) / 1e9);
            costMicros[r] = ((t2 - t1) - (t1 - t0)) / 1e3 / PER_ROUND;
        }
        System.out.printf(Locale.ROOT, "beacons/s, median of %d rounds: unsigned %,.0f, signed %,.0f (%.1f%%); verification %.2f us per beacon "
                        + "(min %.2f, max %.2f)   [%d]%n", rounds, median(unsigned), median(signed), 100 * median(signed) / median(unsigned),
                median(costMicros), Arrays.stream(costMicros).min().orElse(0), Arrays.stream(costMicros).max().orElse(0), sink % 10);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
