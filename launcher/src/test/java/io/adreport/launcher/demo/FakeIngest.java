package io.adreport.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.event.EventRejected;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A stand-in for the ingest endpoint: a real HTTP server that validates every line with the
 * cube's event parser, deduplicates by (type, id, UTC day) as the contract says, answers in the
 * contract's shape, and records everything it saw. Like the real ingest it refuses a request of
 * more than {@link #MAX_EVENTS} events or {@link #MAX_BYTES} bytes whole, with 413 and an
 * {@code {"error": ...}} body, storing nothing of it. Responses can be scripted (429, 503, ...)
 * for the next requests.
 */
final class FakeIngest implements AutoCloseable {
    enum Outcome { ACCEPTED, DUPLICATE, REJECTED }

    /** One received line; {@code event} is null when rejected. */
    record Line(int request, String text, JsonNode json, Event event, String error, Outcome outcome, Instant receivedAt) {
        boolean valid() {
            return outcome != Outcome.REJECTED;
        }

        String type() {
            return event == null ? null : event.type();
        }
    }

    private record Scripted(int status, String retryAfter) {}

    static {
        // Without it the JDK server's response waits for a delayed ACK: ~40 ms per request.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** The contract's limits per request, as the aggregator's ingest enforces them. */
    static final int MAX_EVENTS = 10_000;
    static final int MAX_BYTES = 10 * 1024 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final Clock clock;
    private final EventParser parser;
    private final List<Line> lines = new ArrayList<>();
    private final List<String> bodies = new ArrayList<>();
    private final Deque<Scripted> script = new ArrayDeque<>();
    private final Set<String> stored = new HashSet<>();
    private int requests;
    private int tooLarge;

    private FakeIngest(Clock clock) throws IOException {
        this.clock = clock;
        this.parser = new EventParser(CubeLoader.defaultCube(), clock, Duration.ofDays(7),
                new DeviceHasher("a-test-secret-of-enough-bytes".getBytes(StandardCharsets.UTF_8)));
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/events", this::handle);
        server.start();
    }

    static FakeIngest start(Clock clock) throws IOException {
        return new FakeIngest(clock);
    }

    /** The base URL a client is given (the events path is appended by the client). */
    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The next request is answered with this status (and Retry-After, when not null) and not stored. */
    synchronized void script(int status, String retryAfter) {
        script.add(new Scripted(status, retryAfter));
    }

    synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /** Every request body received, including the refused ones, in order. */
    synchronized List<String> bodies() {
        return List.copyOf(bodies);
    }

    synchronized int requests() {
        return requests;
    }

    /** Requests refused with 413 for their size (scripted answers not included). */
    synchronized int tooLarge() {
        return tooLarge;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Scripted scripted;
            ObjectNode answer;
            String refusal = null;
            synchronized (this) {
                requests++;
                String text = new String(body, StandardCharsets.UTF_8);
                bodies.add(text);
                scripted = script.poll();
                if (scripted == null) {
                    refusal = tooLarge(body.length, text);
                }
                if (refusal != null) {
                    tooLarge++;
                }
                answer = scripted == null && refusal == null ? ingest(text) : null;
            }
            if (scripted != null) {
                if (scripted.retryAfter() != null) {
                    exchange.getResponseHeaders().add("Retry-After", scripted.retryAfter());
                }
                respond(exchange, scripted.status(), "{\"error\":\"scripted " + scripted.status() + "\"}");
            } else if (refusal != null) {
                respond(exchange, 413, JSON.writeValueAsString(JSON.createObjectNode().put("error", refusal)));
            } else {
                respond(exchange, 200, JSON.writeValueAsString(answer));
            }
        }
    }

    /** The real ingest's 413 messages, or null when the body is within the limits. */
    private static String tooLarge(int bytes, String body) {
        if (bytes > MAX_BYTES) {
            return "body: must be at most " + MAX_BYTES + " bytes (10 MiB), got " + bytes;
        }
        long events = body.lines().filter(l -> !l.isBlank()).count();
        return events > MAX_EVENTS ? "body: at most " + MAX_EVENTS + " events per request" : null;
    }

    private ObjectNode ingest(String body) {
        int request = requests;
        Instant now = clock.instant();
        int accepted = 0;
        int duplicates = 0;
        ArrayNode rejected = JSON.createArrayNode();
        int index = 0;
        for (String text : body.split("\n")) {
            if (text.isBlank()) {
                continue;
            }
            JsonNode json = null;
            Event event = null;
            String error = null;
            try {
                json = JSON.readTree(text);
                event = parser.parse(json);
            } catch (EventRejected e) {
                error = e.getMessage();
            } catch (IOException e) {
                error = "event: malformed JSON";
            }
            Outcome outcome;
            if (event == null) {
                outcome = Outcome.REJECTED;
                rejected.addObject().put("index", index).put("error", error);
            } else if (stored.add(event.type() + '\u0000' + event.id() + '\u0000' + LocalDate.ofInstant(event.ts(), ZoneOffset.UTC))) {
                outcome = Outcome.ACCEPTED;
                accepted++;
            } else {
                outcome = Outcome.DUPLICATE;
                duplicates++;
            }
            lines.add(new Line(request, text, json, event, error, outcome, now));
            index++;
        }
        ObjectNode answer = JSON.createObjectNode();
        answer.put("accepted", accepted);
        answer.put("duplicates", duplicates);
        answer.set("rejected", rejected);
        return answer;
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
