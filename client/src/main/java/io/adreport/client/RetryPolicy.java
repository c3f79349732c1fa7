package io.adreport.client;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * The one retry policy of every ingest client (replay, the demo, load harnesses, fault tests).
 *
 * <p>What is retried: 429 (overload) and every 5xx (503 is "HBase unavailable") and an I/O
 * failure (connection refused or reset, timeout). A 4xx other than 429 is the caller's fault and
 * is never retried. Re-sending is safe because the ingest deduplicates by (type, id, UTC day):
 * the same body, with the same event ids, goes out again.
 *
 * <p>How long to wait: {@code Retry-After} when the answer carries one (seconds or an HTTP
 * date), clamped to {@link #maxRetryAfter}; otherwise exponential back-off from
 * {@link #firstBackoff} doubling up to {@link #maxBackoff}. Bounded twice: at most
 * {@link #maxAttempts} attempts and no new attempt once {@link #giveUpAfter} has passed since the
 * first one, so a client never waits forever but does outlast a region server move (seconds) or
 * an HBase restart (a minute or two).
 *
 * @param giveUpAfter       no new attempt after this long since the first one
 * @param maxAttempts       attempts in all, the first included (>= 1)
 * @param firstBackoff      the first wait without Retry-After
 * @param maxBackoff        the longest wait without Retry-After
 * @param defaultRetryAfter the wait for a Retry-After that cannot be read
 * @param maxRetryAfter     the longest wait a Retry-After can ask for
 */
public record RetryPolicy(Duration giveUpAfter, int maxAttempts, Duration firstBackoff, Duration maxBackoff,
                          Duration defaultRetryAfter, Duration maxRetryAfter) {

    /** Five minutes and 500 attempts: outlasts a 60 s HBase outage with room to spare. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofMinutes(5), 500, Duration.ofMillis(250),
            Duration.ofSeconds(8), Duration.ofSeconds(1), Duration.ofSeconds(60));

    public RetryPolicy {
        Objects.requireNonNull(giveUpAfter, "giveUpAfter");
        Objects.requireNonNull(firstBackoff, "firstBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(defaultRetryAfter, "defaultRetryAfter");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts: must be >= 1, not " + maxAttempts);
        }
        if (giveUpAfter.isNegative() || firstBackoff.isNegative() || maxBackoff.compareTo(firstBackoff) < 0
                || defaultRetryAfter.isNegative() || maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException("durations: must be >= 0 and maxBackoff >= firstBackoff");
        }
    }

    /** The same policy with another attempt bound. */
    public RetryPolicy withMaxAttempts(int attempts) {
        return new RetryPolicy(giveUpAfter, attempts, firstBackoff, maxBackoff, defaultRetryAfter, maxRetryAfter);
    }

    /** The same policy with another time bound. */
    public RetryPolicy withGiveUpAfter(Duration d) {
        return new RetryPolicy(d, maxAttempts, firstBackoff, maxBackoff, defaultRetryAfter, maxRetryAfter);
    }

    /** Whether an answer with this status is worth sending again. */
    public static boolean retryable(int status) {
        return status == 429 || status >= 500 && status <= 599;
    }

    /**
     * The wait a {@code Retry-After} header asks for: seconds or an HTTP date, clamped to
     * [0, maxRetryAfter]; {@link #defaultRetryAfter} when unreadable; null when absent (then the
     * caller backs off instead).
     */
    public Duration retryAfter(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return null;
        }
        Duration d;
        try {
            d = Duration.ofSeconds(Long.parseLong(header.trim()));
        } catch (NumberFormatException notSeconds) {
            try {
                d = Duration.between(now, ZonedDateTime.parse(header.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
            } catch (DateTimeParseException notDate) {
                return defaultRetryAfter;
            }
        }
        if (d.isNegative()) {
            return Duration.ZERO;
        }
        return d.compareTo(maxRetryAfter) > 0 ? maxRetryAfter : d;
    }

    /** The wait after {@code failuresSoFar} answers without Retry-After: firstBackoff * 2^n, at most maxBackoff. */
    public Duration backoff(int failuresSoFar) {
        Duration d = firstBackoff.multipliedBy(1L << Math.min(Math.max(failuresSoFar, 0), 20));
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }
}
