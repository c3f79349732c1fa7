package io.adreport.benchmarks;

import io.adreport.schema.threads.DaemonThreads;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Samples the freshness of live counters through the product, exactly, while other traffic runs:
 * {@code FreshnessProbe INGEST_URL REPORT_URL API_KEY PROBES INTERVAL_MS}.
 *
 * <p>Each probe posts one impression of its own, never-seen advertiser {@code probe-RUN-i} whose
 * time lies in an hour that no other traffic of the benchmark touches (hour {@code i + 2} before
 * now; the replayed traffic covers the last 10 minutes), takes the time the post is
 * acknowledged, and then polls two reports every {@value #POLL_MS} ms until each shows the
 * impression:
 * <ul>
 *   <li>{@code GET /v1/reports/advertiser?advertiser=probe-RUN-i&from=H&to=H+1h&granularity=all}:
 *       the probe's own advertiser row;</li>
 *   <li>{@code GET /v1/reports/network?from=H&to=H+1h&granularity=all}: the rollup with no
 *       dimensions, over the probe's own hour, so its count is this one impression and
 *       nothing else.</li>
 * </ul>
 * Both counts are exact (1 when visible, 0 before), so the lag is not estimated from totals. A
 * lag is measured from the acknowledgement to the arrival of the first report that shows the
 * count: an upper bound, with a resolution of the poll interval plus one report's latency.
 * Probes start every INTERVAL_MS and run concurrently; PROBES is at most 150 (hours within the
 * default 7-day accept window). Prints one line per report and exits non-zero if a probe never
 * became visible within 120 s.
 */
public final class FreshnessProbe {
    static final int POLL_MS = 50;
    private static final Duration GIVE_UP = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String ingest;
    private final String report;
    private final String key;

    private FreshnessProbe(String ingest, String report, String key) {
        this.ingest = ingest;
        this.report = report;
        this.key = key;
    }

    /** Milliseconds from acknowledgement to visible, per report (-1: never seen). */
    private record Sample(long advertiserMs, long networkMs) {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: FreshnessProbe INGEST_URL REPORT_URL API_KEY PROBES INTERVAL_MS");
            System.exit(2);
        }
        int probes = Integer.parseInt(args[3]);
        long interval = Long.parseLong(args[4]);
        if (probes < 1 || probes > 150) {
            throw new IllegalArgumentException("PROBES: must be 1..150, got " + probes);
        }
        FreshnessProbe p = new FreshnessProbe(args[0], args[1], args[2]);
        String run = Long.toString(System.currentTimeMillis(), 36);
        Instant hour = Instant.now().truncatedTo(ChronoUnit.HOURS);
        ExecutorService pool = Executors.newCachedThreadPool(DaemonThreads.named("freshness-probe"));
        List<Future<Sample>> futures = new ArrayList<>();
        for (int i = 0; i < probes; i++) {
            int n = i;
            futures.add(pool.submit(() -> p.probe("probe-" + run + "-" + n, hour.minus(Duration.ofHours(n + 2L)))));
            Thread.sleep(interval);
        }
        List<Long> adv = new ArrayList<>();
        List<Long> net = new ArrayList<>();
        int missed = 0;
        for (Future<Sample> f : futures) {
            Sample s = f.get();
            if (s.advertiserMs() < 0 || s.networkMs() < 0) {
                missed++;
            }
            if (s.advertiserMs() >= 0) {
                adv.add(s.advertiserMs());
            }
            if (s.networkMs() >= 0) {
                net.add(s.networkMs());
            }
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        System.out.println(summary("advertiser", adv));
        System.out.println(summary("network", net));
        if (missed > 0) {
            System.err.printf("freshness: %d of %d probes not visible within %d s%n", missed, probes, GIVE_UP.toSeconds());
            System.exit(1);
        }
    }

    private Sample probe(String advertiser, Instant hourStart) throws Exception {
        long ts = hourStart.plus(Duration.ofMinutes(30)).toEpochMilli();
        String event = String.format(Locale.ROOT, "{\"type\":\"impression\",\"id\":\"%s\",\"ts\":%d,\"advertiser\":\"%s\","
                + "\"campaign\":\"probe\",\"creative\":\"probe\",\"publisher\":\"probe\",\"zone\":\"probe\",\"country\":\"ZZ\","
                + "\"deviceType\":\"desktop\",\"costMicros\":1}\n", advertiser, ts, advertiser);
        HttpResponse<String> posted = http.send(HttpRequest.newBuilder(URI.create(ingest + "/v1/events"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(event)).build(),
                HttpResponse.BodyHandlers.ofString());
        long acked = System.nanoTime();
        if (posted.statusCode() != 200 || JSON.readTree(posted.body()).path("accepted").asLong() != 1) {
            throw new IllegalStateException("probe not accepted: HTTP " + posted.statusCode() + " " + posted.body());
        }
        String range = "from=" + enc(hourStart.toString()) + "&to=" + enc(hourStart.plus(Duration.ofHours(1)).toString())
                + "&granularity=all&metrics=impressions";
        URI advertiserUri = URI.create(report + "/v1/reports/advertiser?advertiser=" + enc(advertiser) + "&" + range);
        URI networkUri = URI.create(report + "/v1/reports/network?" + range);
        long advertiserMs = -1;
        long networkMs = -1;
        long deadline = acked + GIVE_UP.toNanos();
        while ((advertiserMs < 0 || networkMs < 0) && System.nanoTime() < deadline) {
            if (advertiserMs < 0 && impressions(advertiserUri) >= 1) {
                advertiserMs = (System.nanoTime() - acked) / 1_000_000;
            }
            if (networkMs < 0 && impressions(networkUri) >= 1) {
                networkMs = (System.nanoTime() - acked) / 1_000_000;
            }
            if (advertiserMs < 0 || networkMs < 0) {
                Thread.sleep(POLL_MS);
            }
        }
        return new Sample(advertiserMs, networkMs);
    }

    private long impressions(URI uri) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + uri + ": HTTP " + r.statusCode() + " " + r.body());
        }
        long sum = 0;
        for (JsonNode row : JSON.readTree(r.body()).path("rows")) {
            sum += row.path("metrics").path("impressions").asLong();
        }
        return sum;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String summary(String what, List<Long> ms) {
        if (ms.isEmpty()) {
            return "freshness " + what + ": no sample";
        }
        List<Long> sorted = new ArrayList<>(ms);
        Collections.sort(sorted);
        return String.format(Locale.ROOT, "freshness %s: %d probes, p50 %d ms, p99 %d ms, max %d ms", what, sorted.size(),
                pct(sorted, 0.50), pct(sorted, 0.99), sorted.get(sorted.size() - 1));
    }

    /** Nearest-rank percentile. */
    static long pct(List<Long> sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
