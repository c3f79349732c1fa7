package io.adreport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    private final RetryPolicy policy = RetryPolicy.DEFAULT;
    private final Instant now = Instant.parse("2026-03-10T12:00:00Z");

    @Test
    void retry_after_is_read_as_seconds_or_an_http_date_and_clamped() {
        assertNull(policy.retryAfter(null, now), "absent: the caller backs off instead");
        assertEquals(Duration.ofSeconds(1), policy.retryAfter("soon", now));
        assertEquals(Duration.ofSeconds(7), policy.retryAfter("7", now));
        assertEquals(Duration.ofSeconds(30), policy.retryAfter("Tue, 10 Mar 2026 12:00:30 GMT", now));
        assertEquals(Duration.ZERO, policy.retryAfter("Tue, 10 Mar 2026 11:00:00 GMT", now));
        assertEquals(policy.maxRetryAfter(), policy.retryAfter("86400", now));
    }

    @Test
    void backoff_doubles_from_the_first_wait_up_to_the_bound() {
        assertEquals(Duration.ofMillis(250), policy.backoff(0));
        assertEquals(Duration.ofMillis(500), policy.backoff(1));
        assertEquals(Duration.ofSeconds(4), policy.backoff(4));
        assertEquals(policy.maxBackoff(), policy.backoff(5));
        assertEquals(policy.maxBackoff(), policy.backoff(1000));
    }

    @Test
    void overload_and_server_errors_are_retried_client_errors_are_not() {
        assertTrue(RetryPolicy.retryable(429));
        assertTrue(RetryPolicy.retryable(503));
        assertTrue(RetryPolicy.retryable(500));
        assertFalse(RetryPolicy.retryable(400));
        assertFalse(RetryPolicy.retryable(413));
        assertFalse(RetryPolicy.retryable(200));
    }

    @Test
    void a_policy_without_attempts_is_refused_with_the_rule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> policy.withMaxAttempts(0));
        assertEquals("maxAttempts: must be >= 1, not 0", e.getMessage());
    }
}
