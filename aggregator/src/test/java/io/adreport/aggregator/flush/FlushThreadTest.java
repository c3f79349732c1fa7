package io.adreport.aggregator.flush;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FlushThreadTest {

    /**
     * Flushes that throw an {@link Error} and a {@link RuntimeException} are handed to the owner
     * and the thread flushes again: a thread that died of the first would never reach the later
     * flushes, and the latch would not count down.
     */
    @Test
    void the_thread_outlives_what_a_flush_throws() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch later = new CountDownLatch(3);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        FlushThread thread = new FlushThread("flush-thread-test", Duration.ofMillis(5), () -> false, () -> {
            int n = calls.incrementAndGet();
            if (n == 1) {
                throw new AssertionError("first flush");
            }
            if (n == 2) {
                throw new IllegalStateException("second flush");
            }
            later.countDown();
        }, errors::add);
        try {
            assertTrue(later.await(30, TimeUnit.SECONDS), "flushes so far: " + calls.get() + ", the first two of them throwing");
        } finally {
            thread.stop(Duration.ofSeconds(5), false);
        }
        assertEquals(2, errors.size(), errors.toString());
        assertInstanceOf(AssertionError.class, errors.get(0));
        assertEquals("first flush", errors.get(0).getMessage());
        assertInstanceOf(IllegalStateException.class, errors.get(1));
    }

    /** After {@code stop} the thread starts no flush, and {@code due} wakes it before its interval. */
    @Test
    void due_wakes_the_thread_and_stop_ends_it() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch flushed = new CountDownLatch(1);
        FlushThread thread = new FlushThread("flush-thread-test", Duration.ofHours(1), () -> calls.get() == 0, () -> {
            calls.incrementAndGet();
            flushed.countDown();
        }, e -> { });
        assertTrue(flushed.await(30, TimeUnit.SECONDS), "a due flush long before the hour's interval");
        thread.stop(Duration.ofSeconds(5), false);
        int after = calls.get();
        thread.wakeUp();
        Thread.sleep(300); // three of the thread's polls, were it still running
        assertEquals(after, calls.get());
    }
}
