package io.adreport.schema.threads;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one factory of the processes' background threads: daemon threads (a pool or timer never
 * keeps a stopping process alive; each owner still shuts its executor down on close) with a
 * name that says whose they are in a thread dump, a profile and the per-thread CPU and
 * allocation columns of the benchmarks, which group threads by name.
 */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** Every thread named {@code name} (a single-thread timer, or a pool whose threads need no number). */
    public static ThreadFactory named(String name) {
        return r -> daemon(r, name);
    }

    /** Threads named {@code prefix-1}, {@code prefix-2}, ... in the order they start. */
    public static ThreadFactory numbered(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> daemon(r, prefix + "-" + n.incrementAndGet());
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
