package io.adreport.client.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.adreport.client.RetryPolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay} against a real HTTP server that answers every request with a fixed status: a
 * server fault is retried a bounded number of times, shown on the progress line, and then stops
 * the command with the status and the server's message; a client error fails its batch only.
 */
class ReplayFailingIngestTest {
    private final AtomicInteger requests = new AtomicInteger();
    private final List<Duration> waits = new CopyOnWriteArrayList<>();
    private volatile int status = 500;
    private final HttpServer server;

    ReplayFailingIngestTest() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/events", ex -> {
            ex.getRequestBody().readAllBytes();
            requests.incrementAndGet();
            byte[] out = "{\"error\":\"internal error: NullPointerException\",\"requestId\":\"req-42\"}"
                    .getBytes(StandardCharsets.UTF_8);
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

    private int replay(Path file, ByteArrayOutputStream out, ByteArrayOutputStream err) {
        return Replay.run(List.of(file.toString(), "--url", "http://127.0.0.1:" + server.getAddress().getPort(),
                        "--batch", "10", "--concurrency", "1"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.systemUTC(), d -> {
                    waits.add(d);
                    Thread.sleep(200); // the progress line (every 500 ms) is drawn while a retry waits
                });
    }

    private static Path events(Path dir, int n) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("{\"type\":\"impression\",\"id\":\"e").append(i).append("\",\"ts\":\"2026-11-29T10:00:00Z\"}\n");
        }
        return Files.writeString(dir.resolve("events.ndjson"), sb);
    }

    @Test
    void an_ingest_answering_500_stops_the_replay_after_bounded_retries_naming_status_and_message(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = replay(events(dir, 1_000), out, err);
        String stderr = err.toString(StandardCharsets.UTF_8);

        assertEquals(1, exit, stderr);
        assertEquals(RetryPolicy.SERVER_FAULT_ATTEMPTS, requests.get(), "one batch, tried a bounded number of times, and no other batch");
        Duration waited = waits.stream().reduce(Duration.ZERO, Duration::plus);
        assertTrue(waited.compareTo(Duration.ofMinutes(1)) < 0, "back-off in all " + waited + " stays under a minute");
        assertTrue(stderr.contains("retrying: 500 Internal Server Error ("), stderr);
        assertTrue(stderr.contains("/" + RetryPolicy.SERVER_FAULT_ATTEMPTS + ")"), stderr);
        assertTrue(stderr.contains("replay: stopped: ingest answered 500 Internal Server Error: internal error: NullPointerException (request req-42) (gave up after 10 attempts)"),
                stderr);
    }

    @Test
    void a_client_error_is_not_retried_and_fails_each_batch_only(@TempDir Path dir) throws Exception {
        status = 400;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = replay(events(dir, 30), out, err);

        assertEquals(1, exit);
        assertEquals(3, requests.get(), "three batches, each sent once");
        assertEquals(List.of(), waits);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("failed 30 in 3 batches"), out.toString(StandardCharsets.UTF_8));
    }
}
