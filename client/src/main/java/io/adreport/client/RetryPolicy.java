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
 * <p>What is retried: 429 (overload), every 5xx and an I/O failure (connection refused or reset,
 * timeout). Transient answers — 429, 502, 503 ("HBase unavailable"), 504 and no answer at all —
 * are retried up to the policy's bounds, which outlast an HBase restart. Any other 5xx (500 is a
 * fault of the server itself, which waiting rarely heals) is retried at most
 * {@link #SERVER_FAULT_ATTEMPTS} times, so a client facing a broken server says so within a
 * minute instead of re-sending for five. A 4xx other than 429 is the caller's fault and is never
 * retried as it is (the client splits a 413's body instead). Re-sending is safe because the ingest
 * deduplicates by (type, id, UTC day): the same body, with the same event ids, goes out again.
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

    /** Attempts in all for a 5xx that is not 502, 503 or 504: ~40 s of back-off from the default policy. */
    public static final int SERVER_FAULT_ATTEMPTS = 10;

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

    /** Whether a status (or -1, no answer) says "try again later" rather than "something is broken". */
    public static boolean transientStatus(int status) {
        return status == -1 || status == 429 || status == 502 || status == 503 || status == 504;
    }

    /** Attempts in all for an answer of this status: the policy's bound, or fewer for a server fault. */
    public int attemptsFor(int status) {
        return transientStatus(status) ? maxAttempts : Math.min(maxAttempts, SERVER_FAULT_ATTEMPTS);
    }

    /** "500 Internal Server Error": the status with its reason phrase, for messages to a person. */
    public static String describe(int status) {
        String phrase = switch (status) {
            case -1 -> "no answer";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 413 -> "Content Too Large";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "";
        };
        return status == -1 ? phrase : phrase.isEmpty() ? String.valueOf(status) : status + " " + phrase;
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
