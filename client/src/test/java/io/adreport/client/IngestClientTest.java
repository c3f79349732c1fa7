package io.adreport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client against a real HTTP server on an ephemeral port that answers scripted statuses and
 * then 200 in the ingest's shape, recording every body it received.
 */
class IngestClientTest {
    private record Answer(int status, String retryAfter) {}

    private final Deque<Answer> script = new ArrayDeque<>();
    private final List<String> bodies = new ArrayList<>();
    private final List<Duration> waits = new ArrayList<>();
    private final Clock clock = Clock.fixed(Instant.parse("2026-03-10T12:00:00Z"), ZoneOffset.UTC);
    private final HttpServer server;

    IngestClientTest() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/events", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Answer a;
            synchronized (this) {
                bodies.add(body);
                a = script.poll();
            }
            byte[] out;
            int status;
            if (a != null) {
                status = a.status();
                if (a.retryAfter() != null) {
                    ex.getResponseHeaders().add("Retry-After", a.retryAfter());
                }
                out = "{\"error\":\"scripted\"}".getBytes(StandardCharsets.UTF_8);
            } else {
                status = 200;
                long lines = body.lines().count();
                out = ("{\"accepted\":" + (lines - 1) + ",\"duplicates\":1,\"rejected\":[{\"index\":0,\"error\":\"ts: is required\"}]}")
                        .getBytes(StandardCharsets.UTF_8);
            }
            ex.sendResponseHeaders(status, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private IngestClient client(RetryPolicy policy) {
        return new IngestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"), policy, clock, waits::add);
    }

    private static byte[] body(String... lines) {
        return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void a_429_and_a_503_are_waited_out_for_retry_after_and_the_same_body_is_resent() throws Exception {
        script.add(new Answer(429, "7"));
        script.add(new Answer(503, "2"));
        Delivery d = client(RetryPolicy.DEFAULT).send(body("{\"id\":\"a\"}", "{\"id\":\"b\"}", "{\"id\":\"c\"}"), 3);

        assertTrue(d.answered(), String.valueOf(d));
        assertEquals(List.of(Duration.ofSeconds(7), Duration.ofSeconds(2)), waits);
        assertEquals(3, bodies.size());
        assertEquals(bodies.get(0), bodies.get(1), "a retry re-sends the same event ids");
        assertEquals(bodies.get(0), bodies.get(2));
        assertEquals(3, d.attempts());
        assertEquals(2, d.retries());
        assertEquals(List.of(429, 503), d.retried());
        assertEquals(2, d.accepted());
        assertEquals(1, d.duplicates());
        assertEquals(List.of(new Delivery.Rejection(0, "ts: is required")), d.rejected());
    }

    @Test
    void server_errors_without_retry_after_back_off_exponentially_until_the_attempt_bound() throws Exception {
        for (int i = 0; i < 10; i++) {
            script.add(new Answer(503, null));
        }
        Delivery d = client(RetryPolicy.DEFAULT.withMaxAttempts(4)).send(body("{}"), 1);

        assertFalse(d.answered());
        assertEquals(503, d.status());
        assertEquals(List.of(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1)), waits);
        assertEquals(4, bodies.size());
        assertTrue(d.error().startsWith("ingest answered 503 Service Unavailable: scripted (gave up after 4 attempts)"), d.error());
    }

    @Test
    void no_attempt_starts_after_the_time_bound() throws Exception {
        script.add(new Answer(429, "30"));
        Delivery d = client(RetryPolicy.DEFAULT.withGiveUpAfter(Duration.ofSeconds(10))).send(body("{}"), 1);
        assertFalse(d.answered());
        assertEquals(List.of(), waits, "a 30 s wait would end after the 10 s bound: given up at once");
        assertEquals(1, bodies.size());
    }

    @Test
    void a_server_fault_is_tried_a_bounded_number_of_times_and_each_retry_is_told() throws Exception {
        for (int i = 0; i < 20; i++) {
            script.add(new Answer(500, null));
        }
        List<String> told = new ArrayList<>();
        Delivery d = client(RetryPolicy.DEFAULT).send(body("{}"), 1, (status, reason, next, max) -> told.add(status + " " + next + "/" + max));

        assertFalse(d.answered());
        assertEquals(RetryPolicy.SERVER_FAULT_ATTEMPTS, bodies.size());
        assertEquals(RetryPolicy.SERVER_FAULT_ATTEMPTS - 1, told.size());
        assertEquals("500 2/" + RetryPolicy.SERVER_FAULT_ATTEMPTS, told.get(0));
        assertTrue(d.error().startsWith("ingest answered 500 Internal Server Error: scripted (gave up after 10 attempts)"), d.error());
    }

    @Test
    void a_body_too_large_is_split_in_two_and_the_answers_added_up() throws Exception {
        script.add(new Answer(413, null));
        Delivery d = client(RetryPolicy.DEFAULT).send(body("{\"id\":\"a\"}", "{\"id\":\"b\"}", "{\"id\":\"c\"}", "{\"id\":\"d\"}"), 4);

        assertTrue(d.answered(), String.valueOf(d));
        assertEquals(List.of("{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\"}\n{\"id\":\"d\"}\n",
                "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", "{\"id\":\"c\"}\n{\"id\":\"d\"}\n"), bodies);
        assertEquals(2, d.accepted(), "each half: one accepted, one duplicate, line 0 rejected (the scripted 200)");
        assertEquals(2, d.duplicates());
        assertEquals(List.of(new Delivery.Rejection(0, "ts: is required"), new Delivery.Rejection(2, "ts: is required")), d.rejected());
        assertEquals(List.of(), waits);
    }

    @Test
    void a_client_error_is_not_retried() throws Exception {
        script.add(new Answer(413, null));
        Delivery d = client(RetryPolicy.DEFAULT).send(body("{}"), 1);
        assertFalse(d.answered());
        assertEquals(413, d.status());
        assertEquals(List.of(), waits);
    }

    @Test
    void an_unreachable_ingest_is_retried_with_back_off_and_then_given_up() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        IngestClient c = new IngestClient(URI.create("http://127.0.0.1:" + closed), RetryPolicy.DEFAULT.withMaxAttempts(3), clock, waits::add);
        Delivery d = c.send(body("{}"), 1);
        assertFalse(d.answered());
        assertEquals(-1, d.status());
        assertEquals(List.of(Duration.ofMillis(250), Duration.ofMillis(500)), waits);
        assertTrue(d.error().startsWith("cannot reach http://127.0.0.1:" + closed + "/v1/events"), d.error());
    }

    @Test
    void a_long_list_goes_out_in_requests_within_the_limits_in_order() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 4_500; i++) {
            lines.add("{\"id\":\"n-" + i + "\"}");
        }
        List<Delivery> ds = client(RetryPolicy.DEFAULT).post(lines);
        assertEquals(List.of(2_000, 2_000, 500), ds.stream().map(Delivery::lines).toList());
        List<String> received = new ArrayList<>();
        bodies.forEach(b -> received.addAll(b.lines().toList()));
        assertEquals(lines, received);
    }
}
