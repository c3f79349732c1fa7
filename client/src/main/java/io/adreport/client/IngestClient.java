package io.adreport.client;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The one client of {@code POST /v1/events}: sends NDJSON, retries by the {@link RetryPolicy},
 * and returns a {@link Delivery} per request. The replay CLI, the demo's traffic, the load
 * harnesses and the fault suite all send through it, so they all back off the same way.
 *
 * <p>Request size: {@link #post} cuts a list of lines into requests of at most
 * {@link #MAX_REQUEST_LINES} lines and {@link #MAX_REQUEST_BYTES} bytes, well under the ingest
 * contract's 10,000 events / 10 MiB (413 beyond), so however large a batch a caller hands over no
 * request is refused for its size, and a retry stays cheap. A single line over the byte limit
 * still goes out alone.
 *
 * <p>Failure behaviour: see {@link RetryPolicy}. A retry re-sends the same bytes (same event ids),
 * which the ingest deduplicates. Waiting blocks the calling thread: that is the back-pressure, a
 * caller produces nothing new while the ingest asks it to wait. Never throws for a failed delivery
 * (it is returned, with the reason); only an interrupt ends a wait early.
 *
 * <p>Time: the give-up bound is read from the injected {@link Clock}, the waits go through the
 * injected {@link Sleeper}; latencies in a {@link Delivery} are measured with {@code nanoTime}.
 *
 * <p>Concurrency: thread-safe; one shared {@link HttpClient} (HTTP/1.1), no mutable state.
 */
public final class IngestClient {
    /** What one request carries at most from {@link #post}: a fifth of the ingest's event limit, a tenth of its byte limit. */
    public static final int MAX_REQUEST_LINES = 2_000;
    public static final int MAX_REQUEST_BYTES = 1024 * 1024;
    /** How long one attempt may take before it counts as an I/O failure. */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Waits between attempts; tests substitute one that records instead of sleeping. */
    @FunctionalInterface
    public interface Sleeper {
        Sleeper REAL = d -> Thread.sleep(d.toMillis());

        void sleep(Duration d) throws InterruptedException;
    }

    /** Told before each wait for a retry: what was answered and which attempt comes next. */
    @FunctionalInterface
    public interface RetryListener {
        RetryListener NONE = (status, reason, nextAttempt, maxAttempts) -> { };

        /**
         * @param status      the status answered (-1: none)
         * @param reason      the server's message or the I/O failure
         * @param nextAttempt the attempt about to be made after the wait (2 for the first retry)
         * @param maxAttempts the most attempts this status gets
         */
        void retrying(int status, String reason, int nextAttempt, int maxAttempts);
    }

    private final URI endpoint;
    private final RetryPolicy policy;
    private final Clock clock;
    private final Sleeper sleeper;
    private final HttpClient http;

    /** A client of {@code ingestUrl} (the base, e.g. {@code http://localhost:8081}) with the default policy. */
    public IngestClient(URI ingestUrl) {
        this(ingestUrl, RetryPolicy.DEFAULT, Clock.systemUTC(), Sleeper.REAL);
    }

    public IngestClient(URI ingestUrl, RetryPolicy policy, Clock clock, Sleeper sleeper) {
        this.endpoint = eventsEndpoint(Objects.requireNonNull(ingestUrl, "ingestUrl"));
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** {@code http://host:8081} or {@code http://host:8081/} become {@code http://host:8081/v1/events}. */
    public static URI eventsEndpoint(URI ingestUrl) {
        String base = ingestUrl.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + "/v1/events");
    }

    public URI endpoint() {
        return endpoint;
    }

    public RetryPolicy policy() {
        return policy;
    }

    /**
     * Delivers {@code lines} (one event each, without newlines) in requests within the size
     * limits, in order, handing each request's {@link Delivery} to {@code each} as it completes.
     * On an interrupt the request in flight is handed over as given up and the rest is not sent.
     */
    public void post(List<String> lines, Consumer<Delivery> each) throws InterruptedException {
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
            int count = to - from;
            try {
                each.accept(send(body.toByteArray(), count));
            } catch (InterruptedException e) {
                each.accept(new Delivery(count, -1, 0, 0, List.of(), 1, 0, 0, "stopped while delivering a request", List.of()));
                throw e;
            }
            from = to;
        }
    }

    /** {@link #post(List, Consumer)} collecting the deliveries. */
    public List<Delivery> post(List<String> lines) throws InterruptedException {
        List<Delivery> out = new ArrayList<>();
        post(lines, out::add);
        return out;
    }

    /** Sends one request body of {@code lines} NDJSON events, retrying by the policy. */
    public Delivery send(byte[] ndjson, int lines) throws InterruptedException {
        return send(ndjson, lines, RetryListener.NONE);
    }

    /**
     * As {@link #send(byte[], int)}, telling {@code listener} before each retry. A body the ingest
     * finds too large (413) is split in two at a line break and each half sent on its own (the
     * answers are added up, rejections keep their line in the whole body).
     */
    public Delivery send(byte[] ndjson, int lines, RetryListener listener) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofByteArray(ndjson))
                .build();
        long first = System.nanoTime();
        long giveUpAt = clock.millis() + policy.giveUpAfter().toMillis();
        int failures = 0;
        List<Integer> retried = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            long begin = System.nanoTime();
            int status;
            String reason;
            Duration wait;
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                status = r.statusCode();
                if (status == 200) {
                    long end = System.nanoTime();
                    return answered(r.body(), lines, attempt, end - begin, end - first, retried);
                }
                reason = "ingest answered " + RetryPolicy.describe(status) + ": " + message(r.body());
                if (status == 413 && lines > 1) {
                    return split(ndjson, lines, listener);
                }
                if (!RetryPolicy.retryable(status)) {
                    return givenUp(lines, status, attempt, begin, first, reason, retried);
                }
                wait = policy.retryAfter(r.headers().firstValue("Retry-After").orElse(null), clock.instant());
                if (wait == null) {
                    wait = policy.backoff(failures);
                }
                failures++;
            } catch (IOException e) {
                status = -1;
                reason = "cannot reach " + endpoint + ": " + e;
                wait = policy.backoff(failures++);
            }
            int bound = policy.attemptsFor(status);
            if (attempt >= bound || clock.millis() + wait.toMillis() > giveUpAt) {
                return givenUp(lines, status, attempt, begin, first, reason + " (gave up after " + attempt + " attempts)", retried);
            }
            retried.add(status);
            listener.retrying(status, reason, attempt + 1, bound);
            sleeper.sleep(wait);
        }
    }

    /** Sends the two halves of a body (split at the line break nearest the middle line) and adds up their answers. */
    private Delivery split(byte[] ndjson, int lines, RetryListener listener) throws InterruptedException {
        int half = lines / 2;
        int cut = 0;
        for (int seen = 0; cut < ndjson.length && seen < half; cut++) {
            if (ndjson[cut] == '\n') {
                seen++;
            }
        }
        Delivery a = send(java.util.Arrays.copyOfRange(ndjson, 0, cut), half, listener);
        Delivery b = send(java.util.Arrays.copyOfRange(ndjson, cut, ndjson.length), lines - half, listener);
        List<Delivery.Rejection> rejections = new ArrayList<>(a.rejected());
        b.rejected().forEach(r -> rejections.add(new Delivery.Rejection(r.line() + half, r.error())));
        List<Integer> retried = new ArrayList<>(a.retried());
        retried.add(413);
        retried.addAll(b.retried());
        Delivery failed = !a.answered() ? a : !b.answered() ? b : null;
        return new Delivery(lines, failed != null ? failed.status() : 200, a.accepted() + b.accepted(),
                a.duplicates() + b.duplicates(), rejections, 1 + a.attempts() + b.attempts(), b.lastNanos(),
                a.totalNanos() + b.totalNanos(), failed != null ? failed.error() : null, retried);
    }

    /** The server's message: the "error" field of a JSON answer (with its request id, if any), else the body abbreviated. */
    private static String message(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n != null && n.hasNonNull("error")) {
                String id = n.path("requestId").asText("");
                String error = abbreviate(n.get("error").asText());
                return error + (id.isEmpty() || error.contains(id) ? "" : " (request " + id + ")");
            }
        } catch (IOException notJson) {
            // fall through: the body as it is
        }
        String text = abbreviate(body);
        return text.isEmpty() ? "(no message)" : text;
    }

    private static Delivery answered(String body, int lines, int attempts, long lastNanos, long totalNanos, List<Integer> retried) {
        JsonNode answer;
        try {
            answer = JSON.readTree(body);
        } catch (IOException e) {
            answer = null;
        }
        JsonNode accepted = answer == null ? null : answer.get("accepted");
        JsonNode duplicates = answer == null ? null : answer.get("duplicates");
        JsonNode rejected = answer == null ? null : answer.get("rejected");
        if (accepted == null || !accepted.canConvertToLong() || duplicates == null || !duplicates.canConvertToLong()
                || rejected == null || !rejected.isArray()) {
            return new Delivery(lines, 200, 0, 0, List.of(), attempts, lastNanos, totalNanos,
                    "ingest answered 200 without accepted, duplicates and rejected: " + abbreviate(body), retried);
        }
        List<Delivery.Rejection> rejections = new ArrayList<>();
        for (JsonNode r : rejected) {
            rejections.add(new Delivery.Rejection(r.path("index").asInt(-1), r.path("error").asText()));
        }
        return new Delivery(lines, 200, accepted.asLong(), duplicates.asLong(), rejections, attempts, lastNanos,
                totalNanos, null, retried);
    }

    private static Delivery givenUp(int lines, int status, int attempts, long begin, long first, String reason,
                                    List<Integer> retried) {
        long end = System.nanoTime();
        return new Delivery(lines, status, 0, 0, List.of(), attempts, end - begin, end - first, reason, retried);
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        String oneLine = s.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 300) + "...";
    }
}
