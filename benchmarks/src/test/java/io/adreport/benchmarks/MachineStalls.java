package io.adreport.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The machine's own stalls while a latency benchmark runs, so that a request's tail can be told
 * apart from the machine's (a jHiccup-style floor, measured in the same run):
 * <ul>
 *   <li>a ticker thread that does nothing but wake every millisecond and notes each wake-up
 *       more than {@value #LATE_MS} ms late (this JVM's pauses, or no core free for it);</li>
 *   <li>the kernel's CPU pressure ({@code /proc/pressure/cpu}, "some"): the share of wall time in
 *       which at least one runnable task of the machine waited for a core.</li>
 * </ul>
 * Neither needs anything of the code under test.
 */
final class MachineStalls implements AutoCloseable {
    private static final int LATE_MS = 10;
    private static final Path PSI = Path.of("/proc/pressure/cpu");

    /** One late wake-up: when the ticker should have woken (epoch ms) and how late it was. */
    private record Stall(long atMillis, double lateMillis) {
    }

    /** A point to measure from. */
    record Mark(long nanos, long psiMicros, int stalls) {
    }

    private final List<Stall> stalls = new ArrayList<>();
    private final Thread ticker;
    private volatile boolean running = true;

    MachineStalls() {
        ticker = new Thread(this::tick, "machine-stall-ticker");
        ticker.setDaemon(true);
        ticker.start();
    }

    private void tick() {
        while (running) {
            long before = System.nanoTime();
            LockSupport.parkNanos(1_000_000);
            double late = (System.nanoTime() - before - 1_000_000) / 1e6;
            if (late > LATE_MS) {
                synchronized (stalls) {
                    stalls.add(new Stall(System.currentTimeMillis() - (long) late, late));
                }
            }
        }
    }

    Mark mark() {
        synchronized (stalls) {
            return new Mark(System.nanoTime(), psiSomeMicros(), stalls.size());
        }
    }

    /** The machine between {@code from} and now, one line ("the machine {@code when}: ..."). */
    String since(Mark from, String when) {
        Mark to = mark();
        double wallMicros = (to.nanos() - from.nanos()) / 1e3;
        double max = 0;
        synchronized (stalls) {
            for (Stall s : stalls.subList(from.stalls(), to.stalls())) {
                max = Math.max(max, s.lateMillis());
            }
        }
        String psi = from.psiMicros() < 0 || to.psiMicros() < 0 ? "CPU pressure not available"
                : String.format("CPU pressure %.0f%% (some runnable task waiting for a core)", 100 * (to.psiMicros() - from.psiMicros()) / wallMicros);
        return String.format("  the machine %s: %s; an idle 1 ms ticker woke > %d ms late %d times (max %.0f ms) in %.1f s%n", when, psi,
                LATE_MS, to.stalls() - from.stalls(), max, wallMicros / 1e6);
    }

    /** The largest late wake-up of the ticker that overlaps [startMillis, startMillis + durationMillis], or 0. */
    double lateDuring(long startMillis, double durationMillis) {
        double worst = 0;
        synchronized (stalls) {
            for (Stall s : stalls) {
                if (s.atMillis() <= startMillis + durationMillis && s.atMillis() + s.lateMillis() >= startMillis) {
                    worst = Math.max(worst, s.lateMillis());
                }
            }
        }
        return worst;
    }

    private static long psiSomeMicros() {
        try {
            for (String line : Files.readAllLines(PSI)) {
                if (line.startsWith("some ")) {
                    return Long.parseLong(line.substring(line.indexOf("total=") + 6).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    @Override
    public void close() {
        running = false;
    }
}
