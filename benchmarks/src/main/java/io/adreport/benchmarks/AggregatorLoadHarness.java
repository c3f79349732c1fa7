package io.adreport.benchmarks;

import io.adreport.client.Delivery;
import io.adreport.client.IngestClient;
import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.MiniHBase;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * End-to-end load: HTTP ingest → raw store with dedup → counters, coalesced and naive, in the
 * same run against the same embedded HBase (ZooKeeper, master and one region server in this
 * JVM, local filesystem, the default ads cube with 16 salt buckets, a namespace per mode).
 *
 * <p>Per mode: start an aggregator on a free port; warm up with its own events (a cold JVM on
 * two cores runs 2-3x slower for the first minute); then post the measured events as NDJSON
 * batches from {@code --concurrency} HTTP clients and flush. Reported: events/s from the first
 * request to the end of the final flush (counters visible), HBase increment cells per event,
 * request latency p50/p99, and a check that the network rollup's impressions equal the distinct
 * impressions sent.
 *
 * <p>Run: {@code mvn -B -o -q install -pl benchmarks -DskipTests && benchmarks/run-load.sh
 * [--events N] [--naive-events N] [--warmup N] [--batch N] [--concurrency N] [--spread-seconds N] [--skew S] [--async-variant true|false]}
 */
public final class AggregatorLoadHarness {
    private static final byte[] IMPRESSIONS = Bytes.toBytes("impressions");

    record Result(String mode, long events, double seconds, double cellsPerEvent, double incrementsPerEvent,
                  double p50Ms, double p99Ms, boolean verified, String breakdown) {
        double eventsPerSecond() {
            return events / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = HarnessOptions.parse(args, "usage: run-load.sh [--events N] [--naive-events N] [--warmup N] [--batch N]"
                + " [--concurrency N] [--spread-seconds N] [--skew S] [--async-variant true|false]");
        int events = Integer.parseInt(o.getOrDefault("events", "300000"));
        int naiveEvents = Integer.parseInt(o.getOrDefault("naive-events", "5000"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "100000"));
        int batch = Integer.parseInt(o.getOrDefault("batch", "1000"));
        int concurrency = Integer.parseInt(o.getOrDefault("concurrency", "8"));
        int spread = Integer.parseInt(o.getOrDefault("spread-seconds", "600"));
        double skew = Double.parseDouble(o.getOrDefault("skew", "1.1"));

        MiniHBase cluster = MiniHBase.start(MiniHBase.utility(), 1);
        List<Result> results = new ArrayList<>();
        try {
            Connection connection = cluster.connection();
            Cube cube = CubeLoader.defaultCube();
            EventParser parser = new EventParser(cube, Clock.systemUTC(), Duration.ofDays(7),
                    new DeviceHasher("load-harness-secret-0123456789".getBytes(StandardCharsets.UTF_8)));
            results.add(run("coalesced", Map.of(), connection, cube, parser, warmup, events, batch, concurrency, spread, skew));
            if (Boolean.parseBoolean(o.getOrDefault("async-variant", "true"))) {
                results.add(run("coalesced", Map.of("flush.durability", "async_wal"), connection, cube, parser, warmup, events, batch,
                        concurrency, spread, skew));
            }
            results.add(run("naive", Map.of(), connection, cube, parser, Math.min(warmup, Math.max(naiveEvents / 2, 1000)), naiveEvents,
                    batch, concurrency, spread, skew));
        } finally {
            cluster.stop();
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "machine: %d cores, %s %s, JDK %s, load average at end %.1f%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), System.getProperty("os.arch"),
                System.getProperty("java.version"), java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        System.out.printf(Locale.ROOT, "settings: batch %d events/request, %d concurrent requests, event times over the last %d s, Zipf skew %.2f%n%n",
                batch, concurrency, spread, skew);
        System.out.println("| mode | events | events/s | increment cells/event | Increment ops/event | request p50 ms | request p99 ms | counters verified |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "| %s | %,d | %,.0f | %.2f | %.2f | %.0f | %.0f | %s |%n", r.mode(), r.events(), r.eventsPerSecond(),
                    r.cellsPerEvent(), r.incrementsPerEvent(), r.p50Ms(), r.p99Ms(), r.verified() ? "yes" : "NO");
        }
        System.out.printf(Locale.ROOT, "%ncoalesced / naive events/s: %.1fx%n", results.get(0).eventsPerSecond() / results.get(results.size() - 1).eventsPerSecond());
        for (Result r : results) {
            System.out.println(r.mode() + ": " + r.breakdown());
        }
        System.exit(results.stream().allMatch(Result::verified) ? 0 : 1);
    }

    private static Result run(String mode, Map<String, String> extra, Connection connection, Cube cube, EventParser parser,
                              int warmupEvents, int events, int batch, int concurrency, int spread, double skew) throws Exception {
        String label = extra.isEmpty() ? mode : mode + " " + extra.toString().replaceAll("[{}]", "");
        TableLayout layout = new TableLayout(cube, "bench_" + label.replaceAll("[^A-Za-z0-9]", "_"));
        new SchemaApplier(layout).apply(connection.getAdmin(), false);
        Map<String, String> settings = new HashMap<>(Map.of("ingest.port", "0", "aggregator.mode", mode, "aggregator.id", "bench-" + mode));
        settings.putAll(extra);
        AggregatorConfig config = AggregatorConfig.of(settings);
        try (Aggregator agg = Aggregator.start(connection, layout, parser, config, Clock.systemUTC())) {
            LoadEvents warm = new LoadEvents("w", warmupEvents, batch, Instant.now(), spread, skew, 1);
            System.err.printf("%s: warm-up %,d events%n", mode, warm.events);
            post(agg.port(), warm.bodies, concurrency);
            agg.flushNow();

            LoadEvents load = new LoadEvents("m", events, batch, Instant.now(), spread, skew, 2);
            AggregatorMetrics m = agg.stats();
            long counted0 = m.countedEvents.get();
            long cells0 = m.cellsSent.get();
            long incs0 = m.incrementsSent.get();
            System.err.printf("%s: measuring %,d events%n", mode, load.events);
            long start = System.nanoTime();
            List<Long> latencies = post(agg.port(), load.bodies, concurrency);
            agg.flushNow();
            double seconds = (System.nanoTime() - start) / 1e9;
            long counted = m.countedEvents.get() - counted0;
            double cellsPerEvent = (double) (m.cellsSent.get() - cells0) / Math.max(1, counted);
            double incsPerEvent = (double) (m.incrementsSent.get() - incs0) / Math.max(1, counted);
            Collections.sort(latencies);
            double p50 = latencies.get(latencies.size() / 2) / 1e6;
            double p99 = latencies.get(Math.min(latencies.size() - 1, (int) Math.ceil(latencies.size() * 0.99) - 1)) / 1e6;
            long expected = warm.uniqueImpressions + load.uniqueImpressions;
            long live = networkImpressions(connection, layout, cube);
            System.err.printf("%s: %,d events in %.1f s; network impressions %,d (sent %,d)%n", mode, load.events, seconds, live, expected);
            String scrape = agg.metrics().scrape();
            String breakdown = String.format(Locale.ROOT,
                    "raw group commits: %,.0f, mean %.1f ms; flushes: %,.0f, mean %.1f ms; queue wait mean %.1f ms (whole run incl. warm-up)",
                    value(scrape, "adreport_raw_write_seconds_count"),
                    1000 * value(scrape, "adreport_raw_write_seconds_sum") / Math.max(1, value(scrape, "adreport_raw_write_seconds_count")),
                    value(scrape, "adreport_flush_seconds_count"),
                    1000 * value(scrape, "adreport_flush_seconds_sum") / Math.max(1, value(scrape, "adreport_flush_seconds_count")),
                    1000 * value(scrape, "adreport_ingest_queue_wait_seconds_sum")
                            / Math.max(1, value(scrape, "adreport_ingest_queue_wait_seconds_count")));
            return new Result(label, load.events, seconds, cellsPerEvent, incsPerEvent, p50, p99, live == expected, breakdown);
        }
    }

    /**
     * Posts every body, {@code concurrency} at a time, through the one ingest client (its retry
     * policy: a 429 is waited out for Retry-After and re-sent); returns each request's latency in
     * ns (its last attempt).
     */
    private static List<Long> post(int port, List<byte[]> bodies, int concurrency) throws Exception {
        IngestClient client = new IngestClient(URI.create("http://localhost:" + port));
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        AtomicInteger next = new AtomicInteger();
        List<Future<List<Long>>> workers = new ArrayList<>();
        for (int w = 0; w < concurrency; w++) {
            workers.add(pool.submit(() -> {
                List<Long> mine = new ArrayList<>();
                int i;
                while ((i = next.getAndIncrement()) < bodies.size()) {
                    byte[] body = bodies.get(i);
                    Delivery d = client.send(body, lineCount(body));
                    if (!d.answered()) {
                        throw new IllegalStateException(d.error());
                    }
                    mine.add(d.lastNanos());
                }
                return mine;
            }));
        }
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> f : workers) {
            all.addAll(f.get());
        }
        pool.shutdown();
        return all;
    }

    private static int lineCount(byte[] body) {
        int n = 0;
        for (byte b : body) {
            if (b == '\n') {
                n++;
            }
        }
        return n;
    }

    /** The value of an unlabelled series in a Prometheus scrape. */
    private static double value(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1));
            }
        }
        return 0;
    }

    /** Sum of the network rollup's day-level impressions. */
    private static long networkImpressions(Connection connection, TableLayout layout, Cube cube) throws Exception {
        RowKeyCodec codec = new RowKeyCodec(cube);
        long sum = 0;
        try (Table t = connection.getTable(layout.counterTable("network")); ResultScanner rs = t.getScanner(new Scan())) {
            for (org.apache.hadoop.hbase.client.Result r : rs) {
                if (codec.parseCounterKey(r.getRow()).granularity() == Granularity.DAY) {
                    sum += CounterValues.value(r, IMPRESSIONS); // base and writer cells
                }
            }
        }
        return sum;
    }
}
