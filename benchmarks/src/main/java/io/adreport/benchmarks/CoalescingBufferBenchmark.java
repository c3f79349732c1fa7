package io.adreport.benchmarks;

import io.adreport.aggregator.coalesce.CoalescingBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The coalescing buffer under contention: several ingest writer threads add the counter cells of
 * events whose dimension values are Zipf-skewed (a few hot rows take most adds), while a drainer
 * thread swaps the buffer out every 100 ms as the flusher does (without HBase). One operation =
 * one event = 8 rollup rows x 2 metric columns = 16 cell adds under one {@code adder()}.
 *
 * <p>Run: {@code mvn -B -o -q install -pl benchmarks -DskipTests && benchmarks/run-jmh.sh CoalescingBufferBenchmark}
 * (add {@code -t 1} for one thread, {@code -p skew=1.1} for the skewed keys only).
 */
@Threads(4)
public class CoalescingBufferBenchmark extends ThroughputBenchmark {
    static final int TABLES = 8;

    /** Distinct rows per table. */
    @Param({"100000"})
    int rowsPerTable;

    /** Zipf exponent of the row popularity (0 = uniform). */
    @Param({"1.1", "0.0"})
    double skew;

    CoalescingBuffer buffer;
    byte[][][] rows;
    Zipf zipf;
    private Thread drainer;
    private volatile boolean running;

    @Setup(Level.Trial)
    public void setUp() {
        buffer = new CoalescingBuffer(7, Integer.MAX_VALUE);
        rows = new byte[TABLES][rowsPerTable][];
        for (int t = 0; t < TABLES; t++) {
            for (int r = 0; r < rowsPerTable; r++) {
                // Shaped like a counter key: salt, granularity, 4-byte minute, two values.
                rows[t][r] = ("\u0003\u0002abcd" + "adv" + (r % 977) + "\u0000camp" + r + "\u0000").getBytes(StandardCharsets.UTF_8);
            }
        }
        zipf = new Zipf(rowsPerTable, skew);
        running = true;
        drainer = new Thread(() -> {
            while (running) {
                buffer.drain();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "drainer");
        drainer.setDaemon(true);
        drainer.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        running = false;
        drainer.interrupt();
        drainer.join();
    }

    /** Per-thread pre-drawn row choices, so the RNG stays out of the measurement. */
    @State(Scope.Thread)
    public static class Draws {
        final int[] picks = new int[1 << 20];
        int next;

        @Setup(Level.Trial)
        public void setUp(CoalescingBufferBenchmark b) {
            Random random = new Random(Thread.currentThread().getId());
            for (int i = 0; i < picks.length; i++) {
                picks[i] = b.zipf.next(random);
            }
        }

        int pick() {
            int p = picks[next];
            next = (next + 1) & (picks.length - 1);
            return p;
        }
    }

    @Benchmark
    public void addEvent(Draws draws) {
        try (CoalescingBuffer.Adder adder = buffer.adder()) {
            for (int t = 0; t < TABLES; t++) {
                byte[] row = rows[t][draws.pick()];
                adder.add(t, row, 20_000, 0, 1);
                adder.add(t, row, 20_000, 3, 1234);
            }
        }
    }
}
