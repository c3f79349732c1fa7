package io.adreport.benchmarks.serving;

import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.campaign.CapWindow;
import io.adreport.schema.campaign.FrequencyCap;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.inventory.Ad;
import io.adreport.schema.inventory.ZoneInventory;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.ServeConfig;
import io.adreport.serving.ServingRoutes;
import io.adreport.serving.check.ProfileGets;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.javalin.Javalin;
import java.lang.management.ManagementFactory;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import io.adreport.campaigns.CampaignRoutes;
import io.adreport.campaigns.budget.PacingRates;
import java.util.stream.Stream;

/**
 * Frequency-cap checks under load: {@code POST /v1/serve/check} for one device and 50 campaigns
 * with 5 cap windows each, over a profiles table of {@code bench.devices} devices (default
 * 1,000,000), first alone, then while the aggregator ingests impressions at half the capacity
 * measured in the same run. Each condition has its floor, measured the same way in the same run:
 * the check's own read (the profile Get with the check's one multi-prefix filter over the 50
 * campaigns) through the HBase client without HTTP, JSON or cap logic; alone also the bare Get.
 * The checks are driven twice: by {@code wrk}, a separate process ({@link Wrk}; skipped when it
 * is not installed), and by the JDK HttpClient inside this JVM. {@code POST /v1/serve/ad} for a
 * zone of 20 ads (the first 20 campaigns: caps, ranking, two signed beacon URLs; the same single
 * profile Get) is driven by {@code wrk} alone and beside the same ingest, against the same floors.
 * Two HTTP floors, also by {@code wrk} in the same run, show what HTTP and JSON alone cost a check
 * ({@link HttpFloor}: the check's request parsed and an answer of its shape written, no HBase): a
 * bare Jetty handler, and a route of the API's own server. Each {@code wrk} line gives the CPU
 * {@code wrk} itself used per request, the load generator's share of the cores.
 * Also the storage of the view
 * history per device and campaign (store files of family {@code fc} after a major compaction).
 * Each phase's line gives its start time, to find it in a JFR recording of the whole run
 * ({@code JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=...}): a recording started in the middle of
 * the run left this JVM several times slower for the rest of it (the region server's scan code
 * kept hitting C2 uncommon traps, about 1,100 a second), so the benchmark no longer starts one.
 *
 * <p>Run: {@code mvn -B -o verify -pl benchmarks -am -Dtest=ServeCheckBenchmarkTest -Dbench=true
 * -Dsurefire.failIfNoSpecifiedTests=false}; results in {@code benchmarks/target/serve-bench.txt}.
 */
@ExtendWith(HBaseExtension.class)
@EnabledIfSystemProperty(named = "bench", matches = "true")
class ServeCheckBenchmarkTest {
    private static final int DEVICES = Integer.getInteger("bench.devices", 1_000_000);
    private static final int CAMPAIGNS = 50;
    /** The ads of the one zone the serve/ad phases ask for: one per campaign, the first 20 campaigns. */
    private static final int ZONE_ADS = 20;
    /** An ad request for that zone, with {@code %s} where the raw device id goes. */
    private static final String AD_REQUEST = "{\"site\":\"site\",\"zone\":\"bz\",\"device\":\"%s\"}";
    private static final int CLIENTS = Integer.getInteger("bench.clients", 8);
    private static final Duration RUN = Duration.ofSeconds(Integer.getInteger("bench.seconds", 30));
    /** The Get phases without ingest (the floors beside ingest run as long as the checks beside it). */
    private static final Duration GET_RUN = Duration.ofSeconds(10);
    private static final byte[] SECRET = "0123456789abcdef-serve-bench".getBytes(StandardCharsets.UTF_8);
    private static final byte[] PREVIOUS = "0123456789abcdef-serve-bench-previous".getBytes(StandardCharsets.UTF_8);

    @Test
    void checks_alone_and_beside_ingest(MiniHBase hbase) throws Exception {
        Cube cube = CubeLoader.defaultCube();
        String ns = hbase.freshNamespace("servebench");
        TableLayout layout = new TableLayout(cube, ns);
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        StringBuilder out = new StringBuilder();
        DeviceHasher hasher = new DeviceHasher(SECRET);
        Instant now = Instant.now();

        CampaignStore store = new CampaignStore(hbase.connection(), layout);
        List<FrequencyCap> caps = List.of(cap(1, "5m"), cap(2, "2h"), cap(5, "1d"), cap(10, "14d"), cap(20, "120d"));
        List<String> campaignKeys = ProfileFixture.campaigns("", CAMPAIGNS);
        List<Ad> ads = new ArrayList<>();
        for (int c = 0; c < CAMPAIGNS; c++) {
            store.put(new Campaign("adv" + c % 10, "camp" + c, Campaign.Status.active, null, null, caps, 0));
            if (c < ZONE_ADS) {
                ads.add(new Ad("adv" + c % 10, "camp" + c, "cr" + c, 1_000_000 + 100_000L * (c % 7), List.of()));
            }
        }
        new ZoneStore(hbase.connection(), layout).put(new ZoneInventory("site", "bz", ads, 0));
        long t0 = System.nanoTime();
        ProfileFixture.Loaded loaded = ProfileFixture.load(hbase.connection(), layout, hasher, DEVICES, campaignKeys, now);
        out.append(String.format("profiles: %,d devices, %,d view cells, %,d segment cells loaded in %.1f s%n",
                DEVICES, loaded.views(), loaded.segments(), (System.nanoTime() - t0) / 1e9));
        ProfileFixture.compact(hbase.connection().getAdmin(), layout.profilesTable());
        long fcBytes = familyBytes(hbase, layout, "fc");
        out.append(String.format("storage: family fc %,d bytes on disk = %.1f bytes per view, %.1f bytes per device with views;"
                        + " a count-min sketch exact to 1 view over the same %,d views needs width e*V = %,d counters x depth 5"
                        + " x 4 bytes = %,d bytes per window (x5 windows), or at 5.5%% error %,d bytes per window%n",
                fcBytes, fcBytes / (double) loaded.views(), fcBytes / (double) loaded.devicesWithViews(), loaded.views(),
                (long) Math.ceil(Math.E * loaded.views()), (long) Math.ceil(Math.E * loaded.views()) * 5 * 4, (long) Math.ceil(Math.E / 0.055) * 5 * 4));

        Metrics metrics = new Metrics();
        ReportApi.Deps deps = ReportApi.Deps.of(hbase.connection(), cube, ns, ReportConfig.defaults(), metrics, Clock.systemUTC());
        // -Dbench.previousSecret=true: the check as during a secret rotation (a second Get, of the row under a previous secret).
        DeviceHashes hashes = Boolean.getBoolean("bench.previousSecret") ? DeviceHashes.of(SECRET, PREVIOUS) : DeviceHashes.of(hasher);
        out.append("device secrets: ").append(hashes.rotating() ? "current and previous (two Gets per check)" : "current only").append('\n');
        ServingRoutes serving = ServingRoutes.create(hbase.connection(), layout, hashes, ProfileConfig.defaults(),
                ServeConfig.of(Map.of()), Clock.systemUTC(), metrics, io.adreport.schema.trust.BeaconSigner.of(
                        io.adreport.schema.trust.TrustConfig.defaults(), Clock.systemUTC()));
        Javalin api = ReportApi.create(deps, Stream.concat(CampaignRoutes.create(deps.connection(), deps.layout(), deps.days(), deps.clock(),
                PacingRates.NONE).stream(), Stream.concat(serving.routes().stream(), Stream.of(HttpFloor.route()))).toList())
                .start("127.0.0.1", 0);
        org.eclipse.jetty.server.Server bareJetty = HttpFloor.bareJetty();
        String key = deps.keys().create("adserver");
        Aggregator agg = Aggregator.start(hbase.connection(), layout, new EventParser(cube, Clock.systemUTC(), Duration.ofDays(7), hasher),
                AggregatorConfig.of(Map.of("ingest.port", "0", "aggregator.id", "serve-bench")), Clock.systemUTC(),
                TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics(), ProfileConfig.defaults());
        try {
            URI check = URI.create("http://127.0.0.1:" + api.port() + "/v1/serve/check");
            StringBuilder body = new StringBuilder("{\"device\":\"%s\",\"campaigns\":[");
            for (int c = 0; c < CAMPAIGNS; c++) {
                body.append(c == 0 ? "" : ",").append('"').append(campaignKeys.get(c)).append('"');
            }
            String template = body.append("]}").toString();
            Wrk.clearLog();
            Wrk wrk = Wrk.find(check, key, template, DEVICES);
            URI serve = URI.create("http://127.0.0.1:" + api.port() + "/v1/serve/ad");
            Wrk ad = wrk == null ? null : Wrk.find(serve, key, AD_REQUEST, DEVICES);
            out.append(wrk == null ? "wrk: not installed (apt-get install wrk): the wrk phases are skipped\n"
                    : "wrk: " + wrk.version() + ", -t" + Wrk.THREADS + " -c" + CLIENTS + ", a separate process\n");
            // warm-up: the table's blocks into the block cache (as far as they fit), so no phase pays the first
            // reads from disk for the others (a first run without this saw each Get phase faster than the last)
            out.append(String.format("warm-up: %,d profile rows scanned into the block cache (%,d MB: hfile.block.cache.size x heap)%n",
                    ProfileFixture.warm(hbase.connection(), layout.profilesTable()), (long) (hbase.configuration().getFloat("hfile.block.cache.size", 0.4f)
                            * Runtime.getRuntime().maxMemory()) >> 20));
            // and the JIT, 10 s of each client: after 5 s of each, C2 was still compiling the check path in the first phase
            checks(check, key, template, Duration.ofSeconds(10));
            URI bareFloor = HttpFloor.url(bareJetty);
            URI apiFloor = URI.create("http://127.0.0.1:" + api.port() + HttpFloor.PATH);
            if (wrk != null) {
                wrk.run(CLIENTS, Duration.ofSeconds(10));
                requireAnAd(serve, key);
                ad.run(CLIENTS, Duration.ofSeconds(10));
                wrk.run(bareFloor, CLIENTS, Duration.ofSeconds(10));
                wrk.run(apiFloor, CLIENTS, Duration.ofSeconds(10));
            }
            List<byte[]> prefixes = ProfileFixture.viewPrefixes(campaignKeys);
            java.util.function.Function<byte[], Get> checkGet = row -> ProfileGets.check(row, prefixes);
            floor(hbase, layout, hasher, checkGet, Duration.ofSeconds(5)); // its JIT too
            out.append(phase("floor, bare Get (client, no HTTP), alone", () -> floor(hbase, layout, hasher, null, GET_RUN)));
            out.append(phase("floor, Get with the check's filter, alone", () -> floor(hbase, layout, hasher, checkGet, GET_RUN)));
            if (wrk != null) {
                // the HTTP floors: the check's request and an answer of its shape, no HBase, no cap logic (HttpFloor)
                out.append(phase("HTTP floor: a bare Jetty handler (no HBase), by wrk", () -> wrk.run(bareFloor, CLIENTS, GET_RUN)));
                out.append(phase("HTTP floor: a route of this API's server (no HBase), by wrk", () -> wrk.run(apiFloor, CLIENTS, GET_RUN)));
                out.append(phase("checks by wrk, alone", () -> wrk.run(CLIENTS, RUN)));
                out.append(phase("POST /v1/serve/ad (a zone of " + ZONE_ADS + " ads) by wrk, alone", () -> ad.run(CLIENTS, RUN)));
            }
            out.append(phase("checks by the JDK client, alone", () -> checks(check, key, template, RUN)));

            URI ingestUrl = URI.create("http://127.0.0.1:" + agg.port() + "/v1/events");
            Ingest probe = Ingest.start(ingestUrl, campaignKeys, 0);
            Thread.sleep(15_000);
            double capacity = probe.stop();
            out.append(String.format("ingest capacity (4 posters, 1,000-event batches, same run): %,.0f events/s%n", capacity));
            Ingest ingest = Ingest.start(ingestUrl, campaignKeys, capacity / 2);
            Thread.sleep(3000);
            String beside = String.format(" beside ingest at half capacity (target %,.0f ev/s)", capacity / 2);
            out.append(phase("floor, Get with the check's filter," + beside, () -> ingest.during(() -> floor(hbase, layout, hasher, checkGet, RUN))));
            if (wrk != null) {
                out.append(phase("checks by wrk," + beside, () -> ingest.during(() -> wrk.run(CLIENTS, RUN))));
                out.append(phase("POST /v1/serve/ad by wrk," + beside, () -> ingest.during(() -> ad.run(CLIENTS, RUN))));
            }
            out.append(phase("checks by the JDK client," + beside, () -> ingest.during(() -> checks(check, key, template, RUN))));
            out.append(phase("floor, Get with the check's filter, again," + beside,
                    () -> ingest.during(() -> floor(hbase, layout, hasher, checkGet, RUN))));
            ingest.stop();
            out.append(String.format("load average at the end: %.2f on %d cores%n",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), Runtime.getRuntime().availableProcessors()));
            Files.writeString(Path.of("target", "serve-bench.txt"), out);
            System.err.print(out);
        } finally {
            bareJetty.stop();
            api.stop();
            serving.close();
            agg.close();
        }
    }

    private static FrequencyCap cap(int max, String window) {
        return new FrequencyCap(max, CapWindow.parse("window", window));
    }

    private static long familyBytes(MiniHBase hbase, TableLayout layout, String family) throws Exception {
        Path unused = null;
        org.apache.hadoop.fs.Path dir = CommonFSUtils.getTableDir(CommonFSUtils.getRootDir(hbase.configuration()), layout.profilesTable());
        FileSystem fs = dir.getFileSystem(hbase.configuration());
        long bytes = 0;
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(dir, true);
        while (it.hasNext()) {
            LocatedFileStatus f = it.next();
            if (f.getPath().getParent().getName().equals(family) && !f.getPath().getName().startsWith(".")) {
                bytes += f.getLen();
            }
        }
        return bytes;
    }

    /**
     * The floor: the profile row Get alone, 8 threads, through the HBase client; with
     * {@code filtered}, the Get it builds for the row instead (the check's read without HTTP).
     */
    private static String floor(MiniHBase hbase, TableLayout layout, DeviceHasher hasher,
                                java.util.function.Function<byte[], Get> filtered, Duration d) throws Exception {
        ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
        return ClosedLoop.run(CLIENTS, d, rng -> {
            byte[] row = keys.row(hasher.hash(ProfileFixture.device(rng.nextInt(DEVICES))));
            try (Table t = hbase.connection().getTable(layout.profilesTable())) {
                t.get(filtered == null ? new Get(row) : filtered.apply(row));
            }
        });
    }

    /**
     * Runs one phase; its line: its name, its result, the CPU this JVM used meanwhile (in cores:
     * with wrk the load generator is not in it) and the load average when it ended.
     */
    private static String phase(String name, Callable<String> phase) throws Exception {
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        Map<String, Long> threads0 = cpuByThreadGroup();
        long t0 = System.nanoTime();
        Instant started = Instant.now(); // to find the phase in a JFR recording of the whole run
        String result = phase.call();
        double cores = (os.getProcessCpuTime() - cpu0) / (double) (System.nanoTime() - t0);
        Map<String, Long> threads1 = cpuByThreadGroup();
        return String.format("%-95s %s; this JVM %.2f cores; load average %.2f; from %s%n%s", name + ":", result, cores,
                os.getSystemLoadAverage(), started.truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
                perRequest(threads0, threads1, result));
    }

    private static final java.util.regex.Pattern REQUESTS = java.util.regex.Pattern.compile("([\\d,]+) requests");

    /**
     * CPU of each live thread of this JVM (user + system, {@code ThreadMXBean}: exact, where a
     * sampling profiler's share depends on how many threads it can see), summed by thread name with
     * digits cut: the region server's handlers, Jetty, the profile readers, the HBase client.
     */
    private static Map<String, Long> cpuByThreadGroup() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> out = new java.util.HashMap<>();
        for (java.lang.management.ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t == null) {
                continue;
            }
            long ns = mx.getThreadCpuTime(t.getThreadId());
            if (ns > 0) {
                out.merge(t.getThreadName().replaceAll("\\d+", "N"), ns, Long::sum);
            }
        }
        return out;
    }

    /** The phase's CPU per request by thread group, the largest six, one line (threads that ended meanwhile are not in it). */
    private static String perRequest(Map<String, Long> before, Map<String, Long> after, String result) {
        java.util.regex.Matcher m = REQUESTS.matcher(result);
        if (!m.find()) {
            return "";
        }
        long requests = Long.parseLong(m.group(1).replace(",", ""));
        StringBuilder line = new StringBuilder("    CPU per request by thread group:");
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(6)
                .forEach(e -> line.append(String.format(" %.1f µs %s;", e.getValue() / 1e3 / requests,
                        e.getKey().length() > 40 ? e.getKey().substring(0, 40) : e.getKey())));
        return line.append('\n').toString();
    }

    /** One ad request answered with an ad: the serve/ad phases measure a choice, not an empty zone. */
    private static void requireAnAd(URI serve, String key) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(serve).header("Authorization", "Bearer " + key)
                .POST(HttpRequest.BodyPublishers.ofString(String.format(AD_REQUEST, ProfileFixture.device(1)))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 || !r.body().contains("\"impressionId\"")) {
            throw new IllegalStateException("POST /v1/serve/ad did not choose an ad: " + r.statusCode() + " " + r.body());
        }
    }

    private static String checks(URI check, String key, String template, Duration d) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return ClosedLoop.run(CLIENTS, d, rng -> {
            String body = String.format(template, ProfileFixture.device(rng.nextInt(DEVICES)));
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(check).header("Authorization", "Bearer " + key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(r.statusCode() + " " + r.body());
            }
        });
    }

    /**
     * Impressions posted by 4 threads in 1,000-event batches, at most {@code rate} events/s (0: as
     * fast as the aggregator takes them), until stopped; {@link #during} reports the rate a phase
     * saw.
     */
    private static final class Ingest {
        private final AtomicLong sent = new AtomicLong();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final ExecutorService pool = Executors.newFixedThreadPool(4);
        private final List<Future<?>> posters = new ArrayList<>();
        private final long start = System.nanoTime();

        static Ingest start(URI url, List<String> campaigns, double rate) {
            Ingest in = new Ingest();
            HttpClient http = HttpClient.newHttpClient();
            AtomicLong seq = new AtomicLong(System.nanoTime());
            for (int t = 0; t < 4; t++) {
                in.posters.add(in.pool.submit(() -> {
                    SplittableRandom rng = new SplittableRandom(seq.get() + Thread.currentThread().getId());
                    while (!in.stop.get()) {
                        if (rate > 0 && in.sent.get() >= rate * (System.nanoTime() - in.start) / 1e9) {
                            Thread.sleep(5);
                            continue;
                        }
                        StringBuilder b = new StringBuilder("[");
                        Instant ts = Instant.now();
                        for (int i = 0; i < 1000; i++) {
                            String c = campaigns.get(rng.nextInt(campaigns.size()));
                            int slash = c.indexOf('/');
                            b.append(i == 0 ? "" : ",").append("{\"type\":\"impression\",\"id\":\"b").append(seq.incrementAndGet())
                                    .append("\",\"ts\":\"").append(ts).append("\",\"device\":\"bench-device-").append(rng.nextInt(DEVICES))
                                    .append("\",\"advertiser\":\"").append(c, 0, slash).append("\",\"campaign\":\"").append(c.substring(slash + 1))
                                    .append("\",\"creative\":\"cr1\",\"publisher\":\"p").append(rng.nextInt(20)).append("\",\"zone\":\"z1\","
                                            + "\"country\":\"US\",\"deviceType\":\"phone\",\"costMicros\":1200}");
                        }
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(url)
                                .POST(HttpRequest.BodyPublishers.ofString(b.append(']').toString())).build(), HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 200) {
                            in.sent.addAndGet(1000);
                        } else {
                            Thread.sleep(50);
                        }
                    }
                    return null;
                }));
            }
            return in;
        }

        /** Runs {@code phase} and appends the ingest rate during it. */
        String during(Callable<String> phase) throws Exception {
            long n0 = sent.get();
            long t0 = System.nanoTime();
            String result = phase.call();
            return result + String.format("; ingest during it %,.0f ev/s", (sent.get() - n0) / ((System.nanoTime() - t0) / 1e9));
        }

        /** Stops the posters; returns the events/s over its whole life. */
        double stop() throws Exception {
            stop.set(true);
            for (Future<?> f : posters) {
                f.get();
            }
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
            return sent.get() / ((System.nanoTime() - start) / 1e9);
        }
    }
}
