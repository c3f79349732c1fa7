package io.adreport.report.query;

import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.meta.MetaStore.AggregatorState;
import io.adreport.schema.metrics.Metrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report API's side of the live-counts exchange ({@link LiveCounts}, which describes the
 * protocol and why it counts each event once): asks every live aggregator for its writer id
 * before a report reads HBase, and for its current totals of the rows read after.
 *
 * <p><b>Which aggregators.</b> Those whose heartbeat row in meta is live and advertises a URL,
 * read from meta at most once per {@link #REFRESH} (a report does not scan meta).
 *
 * <p><b>Failure.</b> Every call of one step goes out at once and shares one deadline
 * ({@code report.live.timeout.ms}); an aggregator that fails or is late is left out of the
 * report, which then shows its counts as of its last flush: never more than the truth, and exact
 * again by its next flush. Counted in {@code adreport_report_live_misses_total}.
 *
 * <p>Thread-safe: the HTTP client is shared; the cached aggregator list is replaced whole.
 */
public final class LiveReads {
    private static final Logger LOG = LoggerFactory.getLogger(LiveReads.class);
    /** How long the list of live aggregators read from meta is used. */
    static final Duration REFRESH = Duration.ofSeconds(1);
    /** Liveness of a heartbeat that declared no expiry (older instances). */
    private static final Duration LIVENESS = Duration.ofSeconds(30);

    private final Supplier<List<AggregatorState>> aggregators;
    private final Clock clock;
    private final Duration timeout;
    private final HttpClient http;
    private final Metrics.Counter misses;
    private final Metrics.Counter rows;
    private volatile Cached cached = new Cached(List.of(), Instant.MIN);

    private record Cached(List<String> urls, Instant readAt) {
    }

    /** Reads nothing live: reports show flushed counters only. */
    public static final LiveReads OFF = new LiveReads();

    private LiveReads() {
        this.aggregators = List::of;
        this.clock = Clock.systemUTC();
        this.timeout = Duration.ZERO;
        this.http = null;
        this.misses = null;
        this.rows = null;
    }

    /**
     * @param aggregators the aggregators' heartbeat rows ({@code MetaStore::aggregators})
     * @param timeout     deadline of each step's calls
     */
    public LiveReads(Supplier<List<AggregatorState>> aggregators, Clock clock, Duration timeout, Metrics metrics) {
        this.aggregators = aggregators;
        this.clock = clock;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
        this.misses = metrics.counter("adreport_report_live_misses_total",
                "Live-counts calls to an aggregator that failed, timed out or found its writer changed (the report then "
                        + "shows that aggregator's counts as of its last flush)");
        this.rows = metrics.counter("adreport_report_live_rows_total", "Counter rows whose live totals reports merged");
    }

    /** Step 1: the writer id of each live aggregator (by URL) that keeps live counts of {@code rollup}. */
    Map<String, Long> writers(String rollup) {
        if (http == null) {
            return Map.of();
        }
        List<String> urls = urls();
        if (urls.isEmpty()) {
            return Map.of();
        }
        Map<String, Long> out = new LinkedHashMap<>();
        Map<String, LiveCounts.Answer> answers = ask(urls, LiveCounts.Request.writerOnly(rollup));
        answers.forEach((url, a) -> {
            if (a.writer() != 0) {
                out.put(url, a.writer());
            }
        });
        return out;
    }

    /**
     * Step 2: the current totals of the rows {@code request} wants, from each aggregator of
     * {@code writers} whose writer id is still the one step 1 saw.
     */
    List<LiveCounts.Answer> totals(Map<String, Long> writers, LiveCounts.Request request) {
        if (writers.isEmpty()) {
            return List.of();
        }
        List<LiveCounts.Answer> out = new ArrayList<>();
        ask(new ArrayList<>(writers.keySet()), request).forEach((url, a) -> {
            if (a.writer() == writers.get(url)) {
                out.add(a);
                rows.add(a.rows().size());
            } else {
                misses.inc(); // it started over between the steps: its stored cells are what the report read
            }
        });
        return out;
    }

    private Map<String, LiveCounts.Answer> ask(List<String> urls, LiveCounts.Request request) {
        byte[] body = LiveCounts.encode(request);
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, CompletableFuture<HttpResponse<byte[]>>> calls = new LinkedHashMap<>();
        for (String url : urls) {
            HttpRequest r = HttpRequest.newBuilder(URI.create(url + LiveCounts.PATH)).timeout(timeout)
                    .header("Content-Type", LiveCounts.CONTENT_TYPE)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            calls.put(url, http.sendAsync(r, HttpResponse.BodyHandlers.ofByteArray()));
        }
        Map<String, LiveCounts.Answer> out = new LinkedHashMap<>();
        calls.forEach((url, call) -> {
            try {
                HttpResponse<byte[]> resp = call.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (resp.statusCode() != 200) {
                    throw new IllegalStateException("HTTP " + resp.statusCode() + ": " + new String(resp.body(),
                            java.nio.charset.StandardCharsets.UTF_8));
                }
                out.put(url, LiveCounts.decodeAnswer(resp.body()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                call.cancel(true);
            } catch (Exception e) {
                call.cancel(true);
                misses.inc();
                LOG.debug("live counts of {} not read: {}", url, e.toString());
            }
        });
        return out;
    }

    private List<String> urls() {
        Cached c = cached;
        Instant now = clock.instant();
        if (now.isBefore(c.readAt().plus(REFRESH)) && !now.isBefore(c.readAt())) {
            return c.urls();
        }
        List<String> urls = new ArrayList<>();
        try {
            for (AggregatorState a : aggregators.get()) {
                if (a.liveUrl() != null && a.live(now, LIVENESS)) {
                    urls.add(a.liveUrl());
                }
            }
        } catch (RuntimeException e) { // meta unreadable: keep the last list, try again next refresh
            LOG.debug("aggregators not read from meta: {}", e.toString());
            urls = c.urls();
        }
        cached = new Cached(List.copyOf(urls), now);
        return urls;
    }
}
