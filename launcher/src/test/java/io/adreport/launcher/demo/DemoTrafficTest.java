package io.adreport.launcher.demo;

import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DemoTrafficTest {
    /** How long a wait for an event may take before the test fails: far above what a loaded machine needs. */
    private static final Duration CEILING = Duration.ofMinutes(2);

    @Test
    void start_runs_on_a_daemon_thread_until_close() throws Exception {
        try (FakeIngest ingest = FakeIngest.start(Clock.systemUTC())) {
            DemoOptions options = DemoOptions.defaults().withRate(400).withBackfill(1, 500);
            DemoTraffic demo = DemoTraffic.start(ingest.url(), options, Clock.systemUTC());
            Thread sender;
            try {
                assertTrue(demo.awaitBackfill(CEILING), "back-fill finished within " + CEILING);
                sender = senderThread().orElseThrow();
                assertTrue(sender.isDaemon(), "a daemon sender thread");
                long until = System.nanoTime() + CEILING.toNanos();
                while (demo.stats().sent().sum() <= demo.stats().backfilled().sum() + 50 && System.nanoTime() < until) {
                    Thread.sleep(20); // bounded poll for live traffic, not a timing assertion
                }
                assertTrue(demo.stats().sent().sum() > demo.stats().backfilled().sum() + 50, "live traffic flows");
            } finally {
                demo.close();
            }
            sender.join(CEILING.toMillis()); // the executor has terminated; the thread itself is on its way out
            assertFalse(sender.isAlive(), "close stops the sender thread");
            DemoStats.Snapshot s = demo.stats().snapshot();
            long booked = s.accepted() + s.duplicates() + s.rejected();
            assertEquals(s.sent(), booked + s.errors(), "every beacon sent is booked: " + s);
            // A request cut off by close is counted as errors though the server may have stored it.
            int received = ingest.lines().size();
            assertTrue(received >= booked && received <= s.sent(), received + " received, " + s);
            demo.close(); // idempotent
        }
    }

    @Test
    void close_does_not_sit_out_a_long_retry_after_and_reports_the_backfill_as_cut_short() throws Exception {
        try (FakeIngest ingest = FakeIngest.start(Clock.systemUTC())) {
            ingest.script(429, "60");
            // So slow a live rate that only the back-fill posts, and gets the 429.
            DemoOptions options = DemoOptions.defaults().withRate(0.001).withBackfill(1, 100);
            DemoTraffic demo = DemoTraffic.start(ingest.url(), options, Clock.systemUTC());
            long until = System.nanoTime() + CEILING.toNanos();
            while (demo.stats().retries().sum() == 0 && System.nanoTime() < until) {
                Thread.sleep(10); // bounded poll until the sender waits out the 429
            }
            assertEquals(1, demo.stats().retries().sum());
            demo.close();
            // Events, not a stopwatch: had close sat out the 60 s Retry-After, the retry would have
            // reached the ingest (which answers it 200) and the batch would be booked accepted.
            assertEquals(1, ingest.requests(), "close cut the wait short: the retry was never sent");
            assertFalse(demo.awaitBackfill(Duration.ZERO));
            DemoStats.Snapshot s = demo.stats().snapshot();
            assertEquals(s.sent(), s.errors(), "the batch cut short is counted: " + s);
        }
    }

    @Test
    void a_simulator_closed_before_it_ran_reports_no_backfill() throws Exception {
        DemoTraffic demo = DemoTraffic.create(java.net.URI.create("http://127.0.0.1:1"), DemoOptions.defaults(), Clock.systemUTC(), d -> { });
        demo.close();
        assertFalse(demo.awaitBackfill(Duration.ofSeconds(1)));
    }

    @Test
    void the_same_seed_and_clock_give_the_same_traffic() throws Exception {
        List<String> first = run(7);
        List<String> second = run(7);
        List<String> other = run(8);
        assertTrue(first.size() > 30);
        assertEquals(first, second);
        assertNotEquals(first, other);
    }

    private static List<String> run(long seed) throws Exception {
        MutableClock clock = MutableClock.at("2026-03-10T18:00:00Z");
        DemoOptions options = DemoOptions.defaults().withSeed(seed).withRate(200).withBackfill(1, 200);
        try (FakeIngest ingest = FakeIngest.start(clock);
             DemoTraffic demo = DemoTraffic.create(ingest.url(), options, clock, d -> { })) {
            demo.backfill();
            demo.tick();
            for (int i = 0; i < 40; i++) {
                clock.advance(Duration.ofMillis(250));
                demo.tick();
            }
            return ingest.bodies();
        }
    }

    private static Optional<Thread> senderThread() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("adreport-demo") && t.isAlive())
                .findFirst();
    }
}
