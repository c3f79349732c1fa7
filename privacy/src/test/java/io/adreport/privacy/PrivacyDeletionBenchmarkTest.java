package io.adreport.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.privacy.Deletion;
import io.adreport.schema.privacy.DeletionStep;
import io.adreport.schema.privacy.DeletionStore;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Time to {@code unreadable} and to {@code compacted} for one device with 10,000 raw events (the
 * default ads cube: 16 raw regions, 16 profile regions), while other traffic is ingested through
 * the same aggregator, with the worker's own thread at its default settings.
 *
 * <p>Run: {@code mvn -B -o verify -pl report-api -am -Dtest=PrivacyDeletionBenchmarkTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dbench=true}; the numbers go to stdout and
 * {@code target/privacy-bench.txt}. Not a timed assertion: it checks only that the deletion found
 * all 10,000 events and completed.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class PrivacyDeletionBenchmarkTest {
    private static final int DEVICE_EVENTS = 10_000;
    private static final int BACKGROUND_BEFORE = 50_000;
    private static final int BATCH = 1_000;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void deletes_a_device_with_ten_thousand_events_while_ingest_runs(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("privbench"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        DeviceHasher hasher = new DeviceHasher("privacy-bench-secret-0123456789".getBytes(StandardCharsets.UTF_8));
        Clock clock = Clock.systemUTC();
        Random random = new Random(16);
        try (Aggregator agg = Aggregator.start(hbase.connection(), layout, new EventParser(cube, clock, Duration.ofDays(7), hasher),
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "privacy-bench")), clock,
                TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults())) {
            String url = "http://127.0.0.1:" + agg.port() + "/v1/events";
            long t0 = System.nanoTime();
            for (int sent = 0; sent < BACKGROUND_BEFORE; sent += BATCH) {
                post(url, batch("bg-" + sent, BATCH, null, random, clock.instant()));
            }
            for (int sent = 0; sent < DEVICE_EVENTS; sent += BATCH) {
                post(url, batch("dev-" + sent, BATCH, "bench-device-1", random, clock.instant()));
            }
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            // As on a long-running cluster: the device's cells are in store files, not only in memstores.
            hbase.connection().getAdmin().flush(layout.rawTable());
            hbase.connection().getAdmin().flush(layout.profilesTable());

            AtomicBoolean ingesting = new AtomicBoolean(true);
            AtomicLong during = new AtomicLong();
            Thread traffic = new Thread(() -> {
                Random r = new Random(17);
                int n = 0;
                while (ingesting.get()) {
                    try {
                        post(url, batch("live-" + n, BATCH, null, r, clock.instant()));
                        during.addAndGet(BATCH);
                        n += BATCH;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, "bench-traffic");
            traffic.start();
            Thread.sleep(3_000); // ingest is running before the request

            DeletionWorker worker = new DeletionWorker(hbase.connection(), layout, PrivacyConfig.defaults(), clock, new Metrics()).start();
            DeletionStore store = worker.store();
            Map<DeletionStep, Long> at = new EnumMap<>(DeletionStep.class);
            String load0 = Files.readString(Path.of("/proc/loadavg")).trim();
            long ingested0 = during.get();
            long start = System.nanoTime();
            String id = store.create(hasher.hash("bench-device-1"), clock.instant());
            worker.wake();
            Deletion d;
            do {
                Thread.sleep(20);
                d = store.get(id).orElseThrow();
                for (DeletionStep s : d.steps().keySet()) {
                    at.putIfAbsent(s, System.nanoTime() - start);
                }
                assertTrue(System.nanoTime() - start < Duration.ofMinutes(30).toNanos(), "done within 30 minutes");
            } while (!d.done());
            double elapsed = (System.nanoTime() - start) / 1e9;
            long ingestedDuring = during.get() - ingested0;
            String load1 = Files.readString(Path.of("/proc/loadavg")).trim();
            ingesting.set(false);
            traffic.join();
            worker.close();

            assertEquals(DEVICE_EVENTS, d.eventsRewritten());
            try (Table profiles = hbase.connection().getTable(layout.profilesTable())) {
                assertTrue(profiles.get(new Get(new ProfileKey(cube.saltBuckets()).row(hasher.hash("bench-device-1")))).isEmpty());
            }
            String report = String.format(Locale.ROOT, """
                    privacy deletion of one device with %,d raw events (+%,d of other devices stored before), default ads cube \
                    (16 raw and 16 profile regions), worker defaults (batch %d, interval %d ms)
                    load before: %,d events in %.1f s (%,.0f events/s) through the aggregator
                    time to unreadable: %.2f s   (observed by polling every 20 ms; step time recorded: %s)
                    time to compacted:  %.2f s
                    time to done:       %.2f s   (no snapshots)
                    ingest during the deletion: %,d events in %.1f s = %,.0f events/s
                    profile cells deleted: %,d
                    load average at request: %s; at done: %s
                    """, DEVICE_EVENTS, BACKGROUND_BEFORE, PrivacyConfig.defaults().batch(), PrivacyConfig.defaults().interval().toMillis(),
                    BACKGROUND_BEFORE + DEVICE_EVENTS, loadSeconds, (BACKGROUND_BEFORE + DEVICE_EVENTS) / loadSeconds,
                    at.get(DeletionStep.UNREADABLE) / 1e9,
                    Duration.between(d.steps().get(DeletionStep.REQUESTED), d.steps().get(DeletionStep.UNREADABLE)),
                    at.get(DeletionStep.COMPACTED) / 1e9, at.get(DeletionStep.DONE) / 1e9,
                    ingestedDuring, elapsed, ingestedDuring / elapsed, d.profileCells(), load0, load1);
            System.out.print(report);
            Files.writeString(Path.of("target/privacy-bench.txt"), report);
        }
    }

    private static void post(String url, String body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 || JSON.readTree(r.body()).path("accepted").asInt() == 0) {
            throw new IllegalStateException("ingest answered " + r.statusCode() + ": " + r.body());
        }
    }

    /** {@code n} impressions (times over the last 6 days), of {@code device} or of random devices. */
    private static String batch(String prefix, int n, String device, Random random, Instant now) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            long ts = now.toEpochMilli() - (long) (random.nextDouble() * Duration.ofDays(6).toMillis());
            int adv = random.nextInt(50);
            sb.append(i == 0 ? "" : ",").append("{\"type\":\"impression\",\"id\":\"").append(prefix).append('-').append(i)
                    .append("\",\"ts\":").append(ts).append(",\"device\":\"").append(device != null ? device : "d" + random.nextInt(1_000_000))
                    .append("\",\"advertiser\":\"adv").append(adv).append("\",\"campaign\":\"c").append(adv).append('-')
                    .append(random.nextInt(10)).append("\",\"creative\":\"cr").append(random.nextInt(5)).append("\",\"publisher\":\"pub")
                    .append(random.nextInt(100)).append("\",\"zone\":\"z1\",\"country\":\"US\",\"deviceType\":\"phone\",\"costMicros\":")
                    .append(100 + random.nextInt(5000)).append('}');
        }
        return sb.append(']').toString();
    }
}
