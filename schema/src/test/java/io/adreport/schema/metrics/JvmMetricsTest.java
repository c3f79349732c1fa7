package io.adreport.schema.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

class JvmMetricsTest {
    private static double sample(Metrics metrics, String name) {
        for (String line : metrics.scrape().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError(name + " not in the scrape");
    }

    @Test
    void allocated_bytes_grow_by_at_least_what_this_thread_allocates() {
        Metrics metrics = new Metrics();
        JvmMetrics.register(metrics);
        assertTrue(metrics.scrape().contains("# TYPE adreport_jvm_allocated_bytes_total counter"));
        double before = sample(metrics, "adreport_jvm_allocated_bytes_total");
        long kept = 0;
        for (int i = 0; i < 64; i++) {
            byte[] block = new byte[1 << 20]; // 64 MiB in all
            block[i] = (byte) i;
            kept += block[i];
        }
        double after = sample(metrics, "adreport_jvm_allocated_bytes_total");
        assertTrue(after - before >= 64.0 * (1 << 20), "allocated " + (after - before) + " bytes, kept " + kept);
    }

    @Test
    void cpu_seconds_grow_by_at_least_what_this_thread_uses() {
        Metrics metrics = new Metrics();
        JvmMetrics.register(metrics);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double before = sample(metrics, "adreport_process_cpu_seconds_total");
        long start = threads.getCurrentThreadCpuTime();
        long spin = 0;
        while (threads.getCurrentThreadCpuTime() - start < 200_000_000L) {
            spin += System.nanoTime() % 7;
        }
        double after = sample(metrics, "adreport_process_cpu_seconds_total");
        // The process's CPU time is counted in scheduler ticks, this thread's in nanoseconds: half is a safe floor.
        assertTrue(after - before >= 0.1, "process CPU grew " + (after - before) + " s while this thread used 0.2 s (" + spin + ")");
    }
}
