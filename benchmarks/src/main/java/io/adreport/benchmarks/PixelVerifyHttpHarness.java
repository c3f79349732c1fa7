package io.adreport.benchmarks;

import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.trust.BeaconKeys;
import io.adreport.schema.trust.BeaconSigner;
import io.adreport.schema.trust.TrustConfig;
import io.adreport.testkit.MiniHBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.client.Connection;

/**
 * The cost of verifying a beacon's signature at the HTTP level: events/s of {@code GET /v1/pixel}
 * with {@code ingest.beacons.signed=required} against the same aggregator build with {@code off},
 * in the same run, against the same embedded HBase (one region server in this JVM, a namespace
 * per mode), each mode's aggregator on its own port.
 *
 * <p>The beacons are signed as {@code /v1/serve/ad} signs them ({@link BeaconSigner}: impression,
 * eleven fields, device token), each with its own id, so every request stores one event (no
 * duplicates). The load generator is {@code wrk} in its own process ({@code apt-get install wrk}),
 * {@code --threads} threads and {@code --connections} connections, each round and thread reading
 * its own part of the URL file ({@code benchmarks/pixel-urls.lua}; the table's stored events
 * equal the requests while no part runs out). Rounds alternate the modes
 * (off, required, off, required, ...) so that the machine's load drifts over both alike; each
 * round's answers are checked: every request answered 200, none refused.
 *
 * <p>Run: {@code mvn -B -o -q package -pl benchmarks -am -DskipTests && benchmarks/run-pixel-verify.sh
 * [--rounds N] [--seconds S] [--beacons N] [--threads N] [--connections N]}
 */
public final class PixelVerifyHttpHarness {
    private static final String KEYS = "k2:benchmark-beacon-key-two,k1:benchmark-beacon-key-one";

    private PixelVerifyHttpHarness() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = HarnessOptions.parse(args,
                "usage: run-pixel-verify.sh [--rounds N] [--seconds S] [--beacons N] [--threads N] [--connections N]");
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        int seconds = Integer.parseInt(o.getOrDefault("seconds", "20"));
        int beacons = Integer.parseInt(o.getOrDefault("beacons", "240000"));
        int threads = Math.min(4, Integer.parseInt(o.getOrDefault("threads", "2"))); // pixel-urls.lua splits a span in four
        int connections = Integer.parseInt(o.getOrDefault("connections", "16"));

        MiniHBase cluster = MiniHBase.start(MiniHBase.utility(), 1);
        List<String> lines = new ArrayList<>();
        try {
            Connection connection = cluster.connection();
            Cube cube = CubeLoader.defaultCube();
            DeviceHasher hasher = new DeviceHasher("benchmark-secret-0123456789".getBytes(StandardCharsets.UTF_8));
            EventParser parser = new EventParser(cube, Clock.systemUTC(), Duration.ofDays(7), hasher);
            Path urls = Files.createTempFile("adreport-pixel-urls", ".txt");
            writeUrls(urls, beacons, hasher);
            try (Aggregator off = start(connection, cube, parser, "off"); Aggregator required = start(connection, cube, parser, "required")) {
                for (int r = 1; r <= rounds; r++) {
                    for (Aggregator agg : List.of(off, required)) {
                        String mode = agg == off ? "off" : "required";
                        long refused0 = refused(agg);
                        long accepted0 = agg.stats().accepted.get();
                        double[] load = new double[1];
                        double rps = wrk(agg.port(), urls, (long) (r - 1) * (beacons / rounds), beacons / rounds, threads, connections, seconds, load);
                        long stored = agg.stats().accepted.get() - accepted0;
                        long refused = refused(agg) - refused0;
                        String line = String.format(Locale.ROOT, "| %d | %s | %,.0f | %,d | %d | %.1f |", r, mode, rps, stored, refused, load[0]);
                        System.err.println(line);
                        lines.add(line);
                        if (refused != 0) {
                            throw new IllegalStateException(mode + ": " + refused + " beacons refused; the URLs must all verify");
                        }
                    }
                }
            } finally {
                Files.deleteIfExists(urls);
            }
        } finally {
            cluster.stop();
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "machine: %d cores, JDK %s; wrk --threads %d --connections %d --duration %ds per round%n%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), threads, connections, seconds);
        System.out.println("| round | ingest.beacons.signed | requests/s (wrk) | events stored | refused | load average (1 min) after |");
        System.out.println("|---:|---|---:|---:|---:|---:|");
        lines.forEach(System.out::println);
        System.exit(0);
    }

    private static Aggregator start(Connection connection, Cube cube, EventParser parser, String mode) throws IOException {
        TableLayout layout = new TableLayout(cube, "bench_pixel_" + mode);
        new SchemaApplier(layout).apply(connection.getAdmin(), false);
        AggregatorConfig config = AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "pixel-" + mode));
        TrustConfig trust = TrustConfig.of(Map.of("ingest.beacons.signed", mode, "beacon.keys", KEYS));
        return Aggregator.start(connection, layout, parser, config, Clock.systemUTC(), trust);
    }

    /** {@code n} signed impression beacons, one path a line, each with its own id (signed for 1 h from now). */
    private static void writeUrls(Path file, int n, DeviceHasher hasher) throws IOException {
        BeaconSigner signer = new BeaconSigner(BeaconKeys.parse(KEYS), Duration.ofHours(1), Clock.systemUTC());
        List<String> devices = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            devices.add(hasher.hash("device-" + i));
        }
        StringBuilder b = new StringBuilder(n * 420);
        for (int i = 0; i < n; i++) {
            b.append("/v1/pixel?").append(signer.query(List.of(Map.entry("type", "impression"), Map.entry("id", UUID.randomUUID().toString()),
                    Map.entry("ts", Long.toString(System.currentTimeMillis())), Map.entry("advertiser", "adv-" + i % 50),
                    Map.entry("campaign", "camp-" + i % 200), Map.entry("creative", "cr-" + i % 400), Map.entry("publisher", "pub-" + i % 30),
                    Map.entry("zone", "top"), Map.entry(BeaconSigner.DEVICE_TOKEN, devices.get(i % devices.size())),
                    Map.entry("country", "US"), Map.entry("deviceType", "phone"), Map.entry("costMicros", Long.toString(1000 + i % 5000)))))
                    .append('\n');
        }
        Files.writeString(file, b);
    }

    /** Runs wrk against {@code port}; its requests/s. Non-2xx answers or socket errors fail the run. */
    private static double wrk(int port, Path urls, long offset, long span, int threads, int connections, int seconds, double[] load)
            throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("pixel.lua", "benchmarks/pixel-urls.lua"));
        Process p = new ProcessBuilder("wrk", "--threads", String.valueOf(threads), "--connections", String.valueOf(connections),
                "--duration", seconds + "s", "--latency", "--script", script.toString(), "http://127.0.0.1:" + port, "--",
                urls.toString(), String.valueOf(offset), String.valueOf(span)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("wrk failed:\n" + out);
        }
        load[0] = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        System.err.print(out);
        if (out.contains("Non-2xx") || out.contains("Socket errors")) {
            throw new IllegalStateException("wrk saw errors:\n" + out);
        }
        Matcher m = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("no Requests/sec in:\n" + out);
        }
        return Double.parseDouble(m.group(1));
    }

    private static long refused(Aggregator agg) {
        long sum = 0;
        Matcher m = Pattern.compile("adreport_beacons_refused_total\\{reason=\"[a-z-]+\"} ([0-9.]+)").matcher(agg.metrics().scrape());
        while (m.find()) {
            sum += (long) Double.parseDouble(m.group(1));
        }
        return sum;
    }
}
