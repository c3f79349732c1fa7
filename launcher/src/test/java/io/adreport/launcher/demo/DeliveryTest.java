package io.adreport.launcher.demo;

import io.adreport.client.IngestClient;
import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the simulator behaves when the ingest pushes back or fails. */
class DeliveryTest {
    private static final DemoOptions ONE_SMALL_DAY = DemoOptions.defaults().withBackfill(1, 200);

    private final List<Duration> waits = new ArrayList<>();
    private final IngestClient.Sleeper recorder = waits::add;

    @Test
    void an_overloaded_ingest_429_is_waited_out_for_retry_after_and_the_same_batch_resent() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), ONE_SMALL_DAY, clock, recorder)) {
            ingest.script(429, "7");
            ingest.script(429, "7");
            demo.backfill();

            assertEquals(List.of(Duration.ofSeconds(7), Duration.ofSeconds(7)), waits);
            List<String> bodies = ingest.bodies();
            assertEquals(bodies.get(0), bodies.get(1));
            assertEquals(bodies.get(0), bodies.get(2));
            DemoStats.Snapshot s = demo.stats().snapshot();
            assertEquals(2, s.retries());
            assertEquals(0, s.errors());
            assertEquals(s.sent(), ingest.lines().size(), "every beacon arrived once the ingest took it");
            assertEquals(s.sent(), s.accepted() + s.duplicates() + s.rejected());
        }
    }

    @Test
    void server_errors_are_retried_with_growing_waits_and_then_counted_as_errors() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), ONE_SMALL_DAY, clock, recorder)) {
            for (int i = 0; i < BeaconSender.ATTEMPTS; i++) {
                ingest.script(503, null);
            }
            demo.backfill();

            assertEquals(List.of(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
                    Duration.ofSeconds(2), Duration.ofSeconds(4)), waits);
            DemoStats.Snapshot s = demo.stats().snapshot();
            int firstBatch = (int) ingest.bodies().get(0).lines().count();
            assertEquals(firstBatch, s.errors(), "the batch that never got through is counted, not lost silently");
            assertEquals(s.sent(), s.accepted() + s.duplicates() + s.rejected() + s.errors());
            assertTrue(s.accepted() > 100, "later batches still go through");
        }
    }

    @Test
    void a_client_error_is_not_retried() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), ONE_SMALL_DAY, clock, recorder)) {
            ingest.script(400, null); // (a 413 is split in two and sent again: IngestClientTest)
            demo.backfill();
            assertEquals(List.of(), waits);
            assertEquals(0, demo.stats().retries().sum());
            assertEquals(ingest.bodies().get(0).lines().count(), demo.stats().errors().sum());
        }
    }

    @Test
    void an_unreachable_ingest_is_counted_as_errors_and_never_stops_the_simulator() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        DemoOptions options = DemoOptions.defaults().withBackfill(1, 50).withRate(100);
        try (DemoTraffic demo = DemoTraffic.create(URI.create("http://127.0.0.1:" + closedPort), options, clock, recorder)) {
            demo.backfill();
            demo.tick();
            clock.advance(Duration.ofSeconds(1));
            demo.tick();
            DemoStats.Snapshot s = demo.stats().snapshot();
            assertTrue(s.sent() > 50, s.toString());
            assertEquals(s.sent(), s.errors());
            assertEquals(0, s.accepted());
            assertTrue(waits.size() >= BeaconSender.ATTEMPTS - 1, "it backed off before giving up");
        }
    }

    @Test
    void the_fake_ingest_refuses_more_than_10000_events_or_10_mib_whole_with_413_like_the_real_one() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock)) {
            HttpClient http = HttpClient.newHttpClient();
            List<String> lines = impressions(FakeIngest.MAX_EVENTS + 1, clock);

            HttpResponse<String> tooMany = post(http, ingest, String.join("\n", lines) + "\n");
            assertEquals(413, tooMany.statusCode());
            assertEquals("{\"error\":\"body: at most 10000 events per request\"}", tooMany.body());
            assertEquals(0, ingest.lines().size(), "nothing of a refused request is stored");

            String padding = "x".repeat(FakeIngest.MAX_BYTES);
            HttpResponse<String> tooBig = post(http, ingest, lines.get(0) + "\n" + padding + "\n");
            assertEquals(413, tooBig.statusCode());
            assertTrue(tooBig.body().contains("body: must be at most 10485760 bytes (10 MiB)"), tooBig.body());
            assertEquals(0, ingest.lines().size());
            assertEquals(2, ingest.tooLarge());

            HttpResponse<String> atTheLimit = post(http, ingest, String.join("\n", lines.subList(0, FakeIngest.MAX_EVENTS)) + "\n\n");
            assertEquals(200, atTheLimit.statusCode(), atTheLimit.body());
            assertEquals(FakeIngest.MAX_EVENTS, ingest.lines().size());
        }
    }

    @Test
    void a_batch_over_the_ingest_limits_goes_out_in_requests_the_ingest_accepts() throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T12:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock)) {
            DemoStats stats = new DemoStats();
            BeaconSender client = new BeaconSender(ingest.url(), recorder, clock, stats);
            List<String> many = impressions(25_000, clock);
            client.post(many);
            // Lines of ~300 KiB: ten of them would be over the 1 MiB a request carries, 40 over the ingest's 10 MiB.
            List<String> longLines = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                longLines.add("{\"type\":\"impression\",\"id\":\"long-" + i + "\",\"ts\":" + clock.millis()
                        + ",\"advertiser\":\"" + "a".repeat(300 * 1024) + "\"}");
            }
            client.post(longLines);

            assertEquals(0, ingest.tooLarge(), "no request was refused for its size");
            assertEquals(0, stats.errors().sum(), stats.snapshot().toString());
            for (String body : ingest.bodies()) {
                assertTrue(body.lines().count() <= IngestClient.MAX_REQUEST_LINES, body.lines().count() + " lines");
                assertTrue(body.getBytes(StandardCharsets.UTF_8).length <= IngestClient.MAX_REQUEST_BYTES, body.length() + " bytes");
            }
            assertTrue(IngestClient.MAX_REQUEST_LINES <= FakeIngest.MAX_EVENTS && IngestClient.MAX_REQUEST_BYTES <= FakeIngest.MAX_BYTES);
            List<String> received = ingest.lines().stream().map(FakeIngest.Line::text).toList();
            List<String> sent = new ArrayList<>(many);
            sent.addAll(longLines);
            assertEquals(sent, received, "every line arrived once, in order");
            assertEquals(25_000, stats.accepted().sum());
            assertEquals(40, stats.rejected().sum(), "the over-long advertisers are the validator's business, not a 413");
        }
    }

    @Test
    void a_tick_of_more_than_10000_beacons_is_posted_without_a_413() throws IOException {
        MutableClock clock = MutableClock.at("2026-03-10T20:00:00Z");
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), DemoOptions.defaults().withBackfill(0, 0).withRate(10_000), clock, recorder)) {
            demo.tick();
            clock.advance(Duration.ofSeconds(1)); // 15,000 beacons owed at the evening peak: over one request's limit
            demo.tick();
            DemoStats.Snapshot s = demo.stats().snapshot();
            assertTrue(s.sent() > FakeIngest.MAX_EVENTS, s.toString());
            assertEquals(0, ingest.tooLarge());
            assertEquals(0, s.errors(), s.toString());
            assertEquals(s.sent(), ingest.lines().size());
        }
    }

    private static List<String> impressions(int n, MutableClock clock) {
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add("{\"type\":\"impression\",\"id\":\"n-" + i + "\",\"ts\":" + clock.millis() + ",\"advertiser\":\"a\"}");
        }
        return out;
    }

    private static HttpResponse<String> post(HttpClient http, FakeIngest ingest, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(IngestClient.eventsEndpoint(ingest.url()))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
