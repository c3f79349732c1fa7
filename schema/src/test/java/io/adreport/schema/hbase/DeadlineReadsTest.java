package io.adreport.schema.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeadlineReadsTest {
    private static final DeadlineReads.Wording WORDING = new DeadlineReads.Wording("busy", "late after ", "interrupted");
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void a_read_in_time_answers() throws IOException {
        DeadlineReads reads = new DeadlineReads("test-read", 2, 0, WORDING);
        assertEquals("row", reads.call(() -> "row", LONG));
    }

    @Test
    void a_late_read_fails_naming_the_deadline_and_is_cancelled() throws Exception {
        DeadlineReads reads = new DeadlineReads("test-read", 2, 0, WORDING);
        CountDownLatch interrupted = new CountDownLatch(1);
        long start = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> reads.call(() -> {
            try {
                Thread.sleep(LONG.toMillis());
            } catch (InterruptedException x) {
                interrupted.countDown();
            }
            return "too late";
        }, Duration.ofMillis(200)));
        assertEquals("late after 200 ms", e.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "waited past the deadline");
        assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the late read was not cancelled");
    }

    @Test
    void a_full_pool_refuses_at_once() throws Exception {
        DeadlineReads reads = new DeadlineReads("test-read", 1, 0, WORDING);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                reads.call(() -> {
                    started.countDown();
                    return release.await(30, TimeUnit.SECONDS);
                }, LONG);
            } catch (IOException ignored) {
                // not asserted: this read only holds the one thread
            }
        });
        holder.start();
        try {
            assertTrue(started.await(10, TimeUnit.SECONDS));
            IOException e = assertThrows(IOException.class, () -> reads.call(() -> "second", LONG));
            assertEquals("busy", e.getMessage());
        } finally {
            release.countDown();
            holder.join(10_000);
        }
    }

    @Test
    void the_reads_own_failures_pass_through() {
        DeadlineReads reads = new DeadlineReads("test-read", 2, 4, WORDING);
        IOException io = new IOException("region server gone");
        assertSame(io, assertThrows(IOException.class, () -> reads.call(() -> {
            throw io;
        }, LONG)));
        IllegalStateException unchecked = new IllegalStateException("bad row");
        assertSame(unchecked, assertThrows(IllegalStateException.class, () -> reads.call(() -> {
            throw unchecked;
        }, LONG)));
        Exception checked = new Exception("other");
        assertSame(checked, assertThrows(IOException.class, () -> reads.call(() -> {
            throw checked;
        }, LONG)).getCause());
    }

    @Test
    void an_interrupted_caller_stops_waiting_and_keeps_its_flag() {
        DeadlineReads reads = new DeadlineReads("test-read", 2, 0, WORDING);
        CompletableFuture<String> never = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        try {
            InterruptedIOException e = assertThrows(InterruptedIOException.class,
                    () -> reads.await(never, System.nanoTime() + LONG.toNanos(), LONG));
            assertEquals("interrupted", e.getMessage());
            assertTrue(Thread.currentThread().isInterrupted());
            assertTrue(never.isCancelled());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void await_takes_a_future_of_another_client_and_its_deadline_passed_already() {
        DeadlineReads reads = new DeadlineReads("test-read", 2, 0, WORDING);
        CompletableFuture<String> never = new CompletableFuture<>();
        IOException e = assertThrows(IOException.class,
                () -> reads.await(never, System.nanoTime() - 1, Duration.ofMillis(1500)));
        assertEquals("late after 1500 ms", e.getMessage());
        assertTrue(never.isCancelled());
    }
}
