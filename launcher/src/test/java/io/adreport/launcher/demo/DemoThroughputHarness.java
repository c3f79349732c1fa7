package io.adreport.launcher.demo;

import io.adreport.testkit.MutableClock;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * How fast the simulator itself can go, so that a chosen demo rate is known to be within its
 * reach: the generator alone, then one sender thread posting to a sink that only counts lines and
 * answers in the contract's shape (so the ingest's own cost is left out). A harness, not a test:
 * it asserts nothing and runs only when asked:
 *
 * <pre>
 * mvn -B -o -q verify -pl launcher -am -Dtest=DemoThroughputHarness -Ddemo.harness=true -Dsurefire.failIfNoSpecifiedTests=false
 * cat launcher/target/surefire-reports/io.adreport.launcher.demo.DemoThroughputHarness-output.txt
 * </pre>
 */
@EnabledIfSystemProperty(named = "demo.harness", matches = "true")
class DemoThroughputHarness {

    @Test
    void measure() throws Exception {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        generator(200_000); // warm-up
        for (int round = 1; round <= 3; round++) {
            System.out.printf("round %d: generator %,.0f beacons/s%n", round, generator(500_000));
        }
        LongAdder received = new LongAdder();
        HttpServer sink = sink(received);
        try {
            URI url = URI.create("http://127.0.0.1:" + sink.getAddress().getPort());
            sender(url, 20); // warm-up
            for (int round = 1; round <= 3; round++) {
                System.out.printf("round %d: one sender thread %,.0f beacons/s%n", round, sender(url, 60));
            }
            for (int round = 1; round <= 3; round++) {
                // Just before midnight: the largest default back-fill, three whole days at the default rate.
                MutableClock clock = MutableClock.at("2026-03-10T23:59:00Z");
                try (DemoTraffic demo = DemoTraffic.create(url, DemoOptions.defaults(), clock, d -> { })) {
                    long t0 = System.nanoTime();
                    demo.backfill();
                    System.out.printf("round %d: default back-fill (%,d beacons: today and 2 days at %.0f/s) posted in %d ms%n",
                            round, demo.stats().backfilled().sum(), DemoOptions.DEFAULT_RATE, (System.nanoTime() - t0) / 1_000_000);
                }
            }
        } finally {
            sink.stop(0);
        }
    }

    private static double generator(int beacons) {
        BeaconGenerator g = new BeaconGenerator(AdNetwork.DEFAULT, new SplittableRandom(1), "h-", 0.05, 0.01, 0.005);
        Instant t = Instant.parse("2026-03-10T12:00:00Z");
        long made = 0;
        long t0 = System.nanoTime();
        while (made < beacons) {
            made += g.batch(t, t.plusSeconds(1), 1000).lines().size();
            t = t.plusSeconds(1);
        }
        return made / ((System.nanoTime() - t0) / 1e9);
    }

    /** Ticks of one simulated second at the maximum rate, as fast as the sender thread can post them. */
    private static double sender(URI url, int ticks) {
        MutableClock clock = MutableClock.at("2026-03-10T20:00:00Z");
        DemoOptions options = DemoOptions.defaults().withRate(DemoOptions.MAX_RATE).withBackfill(0, 0);
        try (DemoTraffic demo = DemoTraffic.create(url, options, clock, d -> { })) {
            demo.tick();
            long t0 = System.nanoTime();
            for (int i = 0; i < ticks; i++) {
                clock.advance(Duration.ofSeconds(1));
                demo.tick();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (demo.stats().errors().sum() > 0) {
                throw new IllegalStateException("the sink refused beacons: " + demo.stats().snapshot());
            }
            return demo.stats().sent().sum() / seconds;
        }
    }

    private static HttpServer sink(LongAdder received) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/events", exchange -> {
            try (exchange; InputStream in = exchange.getRequestBody()) {
                int lines = 0;
                for (byte b : in.readAllBytes()) {
                    if (b == '\n') {
                        lines++;
                    }
                }
                received.add(lines);
                byte[] answer = ("{\"accepted\":" + lines + ",\"duplicates\":0,\"rejected\":[]}").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, answer.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        });
        server.start();
        return server;
    }
}
