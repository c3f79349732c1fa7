package io.adreport.benchmarks.serving;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The serving benchmarks' closed-loop load: {@code clients} threads each call as fast as the
 * answers come back for a duration, every call's latency kept; the summary line gives the
 * throughput and the exact p50/p99/max over all calls as recorded, and the p99 as {@code wrk}
 * would report it ({@link WrkCorrection}), so that either statistic can be set beside wrk's.
 */
public final class ClosedLoop {
    private static final int MAX_CALLS_PER_CLIENT = 1 << 21;

    /** One request; {@code rng} is the client's own. */
    public interface Call {
        void call(SplittableRandom rng) throws Exception;
    }

    private ClosedLoop() {
    }

    public static String run(int clients, Duration d, Call call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long start = System.nanoTime();
        long end = start + d.toNanos();
        List<Future<long[]>> parts = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int seed = c;
            parts.add(pool.submit(() -> {
                SplittableRandom rng = new SplittableRandom(seed * 7919L + System.nanoTime());
                // grown as calls come, not allocated at the cap (8 clients' 16 MB, live from a
                // phase's first call, for the floor's JVM to copy)
                long[] lat = new long[1 << 12];
                int n = 0;
                while (System.nanoTime() < end && n < MAX_CALLS_PER_CLIENT) {
                    long s = System.nanoTime();
                    call.call(rng);
                    if (n == lat.length) {
                        lat = Arrays.copyOf(lat, Math.min(MAX_CALLS_PER_CLIENT, lat.length * 2));
                    }
                    lat[n++] = System.nanoTime() - s;
                }
                return Arrays.copyOf(lat, n);
            }));
        }
        long[] all = new long[0];
        for (Future<long[]> f : parts) {
            long[] p = f.get();
            long[] merged = Arrays.copyOf(all, all.length + p.length);
            System.arraycopy(p, 0, merged, all.length, p.length);
            all = merged;
        }
        long runtimeMicros = (System.nanoTime() - start) / 1000;
        pool.shutdown();
        Arrays.sort(all);
        long[] micros = new long[all.length];
        for (int i = 0; i < all.length; i++) {
            micros[i] = all[i] / 1000;
        }
        long wrkP99 = WrkCorrection.percentile(WrkCorrection.correct(micros, runtimeMicros, clients), 99);
        return String.format("%,d requests, %,.0f/s with %d clients, p50 %.2f ms, p99 %.2f ms, max %.1f ms, p99 as wrk corrects it %.2f ms",
                all.length, all.length / (double) d.toSeconds(), clients, all[all.length / 2] / 1e6,
                all[(int) (all.length * 0.99)] / 1e6, all[all.length - 1] / 1e6, wrkP99 / 1e3);
    }
}
