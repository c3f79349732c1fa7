package io.adreport.schema.hbase;

import io.adreport.schema.threads.DaemonThreads;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads of a request path that must answer by a hard deadline, and the one place that waits for
 * them. A Table's operation and RPC timeouts ({@link TimedTables}) do not bound every wait of the
 * HBase client: a caller can park on the connection's region-lookup lock while another thread
 * waits out a lookup in {@code hbase:meta} (the client's meta timeout, minutes during an outage).
 * So the read runs on a bounded pool of daemon threads and the caller stops waiting at the
 * deadline; the late read is cancelled. A full pool refuses a read at once rather than queueing
 * callers behind a dead region server.
 *
 * <p>Every failure is an {@link IOException} whose message is the owner's {@link Wording}: refused
 * (pool full), late (deadline passed; the deadline's milliseconds are appended), interrupted (an
 * {@link InterruptedIOException}, with the caller's interrupt flag set again). An exception of the
 * read itself passes through as thrown (IOException and unchecked ones), a checked one of another
 * kind as the cause of an IOException.
 */
public final class DeadlineReads {
    /**
     * What the errors say.
     *
     * @param refused     the message when every thread is busy and the queue full
     * @param late        the start of the message when the deadline passed, followed by the
     *                    deadline in milliseconds and {@code " ms"}
     * @param interrupted the message when the waiting caller is interrupted
     */
    public record Wording(String refused, String late, String interrupted) {
    }

    private final ExecutorService pool;
    private final Wording wording;

    /**
     * @param threadName name of the pool's daemon threads
     * @param threads    most reads running at once
     * @param queue      reads that may wait for a thread beyond those (0: none; threads start on
     *                   demand and end after 60 s idle)
     */
    public DeadlineReads(String threadName, int threads, int queue, Wording wording) {
        BlockingQueue<Runnable> waiting = queue == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(queue);
        this.pool = new ThreadPoolExecutor(queue == 0 ? 0 : threads, threads, 60, TimeUnit.SECONDS, waiting,
                DaemonThreads.named(threadName));
        this.wording = wording;
    }

    /** {@code read} on the pool, its answer waited for at most {@code deadline}. */
    public <T> T call(Callable<T> read, Duration deadline) throws IOException {
        Future<T> f;
        try {
            f = pool.submit(read);
        } catch (RejectedExecutionException e) {
            throw new IOException(wording.refused());
        }
        return await(f, System.nanoTime() + deadline.toNanos(), deadline);
    }

    /**
     * The answer of {@code f} (a read on this pool, or one that another client runs, such as an
     * asynchronous scan), waited for until {@code deadlineNanos} ({@link System#nanoTime});
     * {@code deadline} is the time the caller granted, named in the late message.
     */
    public <T> T await(Future<T> f, long deadlineNanos, Duration deadline) throws IOException {
        try {
            return f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IOException(wording.late() + deadline.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof RuntimeException r) {
                throw r;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IOException(c);
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(wording.interrupted());
        }
    }
}
