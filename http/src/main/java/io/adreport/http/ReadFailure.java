package io.adreport.http;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** HBase could not be read in time or at all: the service's fault, answered with 503. */
public final class ReadFailure extends RuntimeException {
    public ReadFailure(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The result of one read task, waiting at most {@code waitNanos}. A {@link QueryException}
     * of the task (a client error such as too many rows) passes through; any other failure, a
     * timeout (reported as {@code timeout}, the read budget) or an interrupt becomes a
     * {@link ReadFailure}. The one mapping of read-task outcomes for every reader.
     */
    public static <T> T await(Future<T> f, long waitNanos, Duration timeout) {
        try {
            return f.get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof QueryException qe) {
                throw qe;
            }
            throw new ReadFailure("reading counters failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new ReadFailure("reading counters took longer than " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReadFailure("interrupted", e);
        }
    }
}
