package io.adreport.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Posts batches of NDJSON beacons to {@code POST {ingest}/v1/events} the way a well-behaved client
 * does, and books every answer in {@link DemoStats}.
 *
 * <p>Request size: a batch goes out in requests of at most {@link #MAX_REQUEST_LINES} lines and
 * {@link #MAX_REQUEST_BYTES} bytes, well under the ingest contract's limit of 10,000 events or
 * 10 MiB per request (413 beyond), so however large a batch the
 * caller hands over (a back-fill hour, a catch-up tick at a high rate), no request is refused for
 * its size. Smaller requests also keep a retry cheap. Only a single line longer than the byte
 * limit would still be refused; the simulator makes none.
 *
 * <p>Failure behaviour: a 429 is overload, so the client waits as long as {@code Retry-After}
 * says (1 s when absent, at most {@link #MAX_RETRY_AFTER}) and sends the same batch again, up to
 * {@link #MAX_OVERLOAD_RETRIES} times; a 5xx or an I/O failure is retried with exponential
 * back-off from {@link #FIRST_BACKOFF} up to {@link #MAX_FAILURE_RETRIES} times. Re-sending is safe
 * because the ingest deduplicates by event id. Anything else (a 4xx, an answer that is not the
 * contract's JSON) and a batch that exhausts its retries are counted as errors, with the reason
 * kept in {@link #lastError()}. Waiting blocks the calling thread, which is the back-pressure: the
 * simulator produces no new traffic while the ingest asks it to wait.
 *
 * <p>Concurrency: one caller thread at a time; {@code lastError} is volatile for readers.
 */
final class IngestClient {
    /** What one request carries at most: a fifth of the ingest's event limit and a tenth of its byte limit. */
    static final int MAX_REQUEST_LINES = 2_000;
    static final int MAX_REQUEST_BYTES = 1024 * 1024;
    static final int MAX_OVERLOAD_RETRIES = 20;
    static final int MAX_FAILURE_RETRIES = 5;
    static final Duration FIRST_BACKOFF = Duration.ofMillis(250);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(8);
    static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);
    static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Waits between attempts; tests substitute one that records instead of sleeping. */
    @FunctionalInterface
    interface Sleeper {
        Sleeper REAL = d -> Thread.sleep(d.toMillis());

        void sleep(Duration d) throws InterruptedException;
    }

    private final URI endpoint;
    private final HttpClient http;
    private final Sleeper sleeper;
    private final Clock clock;
    private final DemoStats stats;
    private final boolean backfill;
    private volatile String lastError;

    IngestClient(URI ingestUrl, Sleeper sleeper, Clock clock, DemoStats stats) {
        this(ingestUrl, sleeper, clock, stats, false);
    }

    /** @param backfill the lines this client sends are also counted in {@link DemoStats#backfilled()}, request by request */
    IngestClient(URI ingestUrl, Sleeper sleeper, Clock clock, DemoStats stats, boolean backfill) {
        this.endpoint = eventsEndpoint(ingestUrl);
        this.sleeper = sleeper;
        this.clock = clock;
        this.stats = stats;
        this.backfill = backfill;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** {@code http://host:8081} or {@code http://host:8081/} become {@code http://host:8081/v1/events}. */
    static URI eventsEndpoint(URI ingestUrl) {
        String base = ingestUrl.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + "/v1/events");
    }

    URI endpoint() {
        return endpoint;
    }

    /** The reason of the most recent error, or null. */
    String lastError() {
        return lastError;
    }

    /**
     * Delivers a batch in requests within the size limits, in order, and books the answers. Each
     * line is counted in {@code sent} once, however many attempts its request takes. Never throws
     * for a failed delivery; only an interrupt ends it early, and then the request in flight is
     * counted as errors (the ingest may or may not have stored it) and the rest is not sent.
     */
    void post(List<String> lines) throws InterruptedException {
        int from = 0;
        while (from < lines.size()) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            int to = from;
            while (to < lines.size() && to - from < MAX_REQUEST_LINES) {
                byte[] line = (lines.get(to) + "\n").getBytes(StandardCharsets.UTF_8);
                if (to > from && body.size() + line.length > MAX_REQUEST_BYTES) {
                    break;
                }
                body.writeBytes(line);
                to++;
            }
            postRequest(body.toByteArray(), to - from);
            from = to;
        }
    }

    private void postRequest(byte[] body, int lineCount) throws InterruptedException {
        stats.sent().add(lineCount);
        if (backfill) {
            stats.backfilled().add(lineCount);
        }
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        try {
            deliver(request, lineCount);
        } catch (InterruptedException e) {
            fail(lineCount, "stopped while delivering a batch");
            throw e;
        }
    }

    private void deliver(HttpRequest request, int lineCount) throws InterruptedException {
        int overloads = 0;
        int failures = 0;
        while (true) {
            Duration wait;
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                int status = response.statusCode();
                if (status == 200) {
                    book(response.body(), lineCount);
                    return;
                }
                if (status == 429 && overloads < MAX_OVERLOAD_RETRIES) {
                    overloads++;
                    wait = retryAfter(response.headers().firstValue("Retry-After").orElse(null));
                } else if (status >= 500 && failures < MAX_FAILURE_RETRIES) {
                    wait = backoff(failures++);
                } else {
                    fail(lineCount, "ingest answered " + status + ": " + abbreviate(response.body()));
                    return;
                }
            } catch (IOException e) {
                if (failures >= MAX_FAILURE_RETRIES) {
                    fail(lineCount, "cannot reach " + endpoint + ": " + e);
                    return;
                }
                wait = backoff(failures++);
            }
            stats.retries().increment();
            sleeper.sleep(wait);
        }
    }

    private void book(String body, int lineCount) {
        JsonNode answer;
        try {
            answer = JSON.readTree(body);
        } catch (IOException e) {
            fail(lineCount, "ingest answered 200 with a body that is not JSON: " + abbreviate(body));
            return;
        }
        JsonNode accepted = answer == null ? null : answer.get("accepted");
        JsonNode duplicates = answer == null ? null : answer.get("duplicates");
        JsonNode rejected = answer == null ? null : answer.get("rejected");
        if (accepted == null || !accepted.canConvertToLong() || duplicates == null || !duplicates.canConvertToLong()
                || rejected == null || !rejected.isArray()) {
            fail(lineCount, "ingest answered 200 without accepted, duplicates and rejected: " + abbreviate(body));
            return;
        }
        stats.accepted().add(accepted.asLong());
        stats.duplicates().add(duplicates.asLong());
        stats.rejected().add(rejected.size());
        long unaccounted = lineCount - accepted.asLong() - duplicates.asLong() - rejected.size();
        if (unaccounted != 0) {
            stats.errors().add(Math.max(0, unaccounted));
            lastError = "ingest accounted for " + (lineCount - unaccounted) + " of " + lineCount + " beacons";
        }
    }

    private void fail(int lineCount, String reason) {
        stats.errors().add(lineCount);
        lastError = reason;
    }

    /** Seconds or an HTTP date, clamped to [0, MAX_RETRY_AFTER]; 1 s when absent or unreadable. */
    Duration retryAfter(String header) {
        if (header == null || header.isBlank()) {
            return DEFAULT_RETRY_AFTER;
        }
        Duration d;
        try {
            d = Duration.ofSeconds(Long.parseLong(header.trim()));
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(header.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                d = Duration.between(clock.instant(), at.toInstant());
            } catch (DateTimeParseException notDate) {
                return DEFAULT_RETRY_AFTER;
            }
        }
        if (d.isNegative()) {
            return Duration.ZERO;
        }
        return d.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : d;
    }

    static Duration backoff(int failuresSoFar) {
        Duration d = FIRST_BACKOFF.multipliedBy(1L << Math.min(failuresSoFar, 10));
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        String oneLine = s.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }
}
