package io.adreport.schema.metrics;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The process's own cost in {@code /metrics}, for the cost-per-event benchmarks and for operators:
 * bytes allocated on the heap by every thread since start (the JVM's per-thread allocation
 * counters, threads that ended included), time spent in garbage collection, and CPU time. A
 * benchmark divides the difference of two scrapes by the events accepted between them.
 */
public final class JvmMetrics {
    private JvmMetrics() {
    }

    public static void register(Metrics metrics) {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
                && threads.isThreadAllocatedMemorySupported()) {
            threads.setThreadAllocatedMemoryEnabled(true);
            metrics.counterFrom("adreport_jvm_allocated_bytes_total",
                    "bytes allocated on the heap by all threads since the process started",
                    () -> Math.max(0, threads.getTotalThreadAllocatedBytes()));
        }
        metrics.counterFrom("adreport_jvm_gc_seconds_total", "time spent in garbage collection (all collectors)",
                () -> ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .mapToLong(GarbageCollectorMXBean::getCollectionTime).filter(ms -> ms > 0).sum() / 1e3);
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            metrics.counterFrom("adreport_process_cpu_seconds_total", "user and system CPU time of the process",
                    () -> Math.max(0, os.getProcessCpuTime()) / 1e9);
        }
    }
}
