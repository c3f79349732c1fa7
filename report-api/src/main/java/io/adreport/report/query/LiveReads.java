package io.adreport.report.query;

import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.meta.AggregatorState;
import io.adreport.schema.metrics.Metrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report API's side of the live-counts exchange ({@link LiveCounts}, which describes the
 * protocol and why it counts each event once): knows every live aggregator's writer id before a
 * report reads HBase, and asks for its current totals of the rows read after.
 *
 * <p><b>Writer ids.</b> An aggregator's writer id changes only when it starts over or restarts, so
 * the id seen in an earlier answer is reused: a report makes one call per aggregator, not two. Only
 * an aggregator not seen yet (for that rollup) is asked for its id first. If the id in the totals'
 * answer differs from the one the report used, the writer started over since: that answer is
 * left out (the report reads that aggregator as stored, as when it started over between two
 * calls) and the next report asks for the new id.
 *
 * <p><b>Which aggregators.</b> Those whose heartbeat row in meta is live and advertises a URL,
 * read from meta at most once per {@link #REFRESH} (a report does not scan meta).
 *
 * <p><b>Failure.</b> Every call of one step goes out at once and shares one deadline
 * ({@code report.live.timeout.ms}); an aggregator that fails or is late is left out of the
 * report, which then shows its counts as of its last flush: never more than the truth, and exact
 * again by its next flush. Counted in {@code adreport_report_live_misses_total}.
 *
 * <p><b>Closed days</b> are {@link LiveDays}': live rows of days closed in meta are left out
 * after the answers, and a fixed series does not ask for days known closed.
 *
 * <p><b>Asking while reading.</b> A fixed series asks at the same time as it reads HBase
 * ({@link #askHere}, checked as {@code LiveCounts} describes, by {@link LiveMerge#acceptRacing}):
 * no first step, and the report waits for about the slower of the read and the answers, not their sum.
 * Other reports keep the two steps around the read.
 *
 * <p>Thread-safe: the HTTP client is shared (and the JDK's keep-alive cache of {@link HttpURLConnection}); the cached
 * aggregator list is replaced whole.
 */
public final class LiveReads {
    private static final Logger LOG = LoggerFactory.getLogger(LiveReads.class);
    /** How long the list of live aggregators read from meta is used. */
    static final Duration REFRESH = Duration.ofSeconds(1);
    /** Liveness of a heartbeat that declared no expiry (older instances). */
    private static final Duration LIVENESS = Duration.ofSeconds(30);

    private final Supplier<List<AggregatorState>> aggregators;
    private final LiveDays days;
    private final Clock clock;
    private final Duration timeout;
    private final HttpClient http;
    private final Metrics.Counter misses;
    private final Metrics.Counter rows;
    private final Metrics.Histogram askSeconds;
    private volatile Cached cached = new Cached(List.of(), Instant.MIN);
    /**
     * The writer ids last seen per aggregator and rollup, the current one first, then the retained
     * ones ({@link LiveCounts.Answer#writers}); entries of aggregators gone from meta are dropped.
     */
    private final Map<Writer, long[]> known = new ConcurrentHashMap<>();
    /** The cluster's internal credential presented to aggregators (a key of role internal), or null. */
    private volatile Supplier<String> credential = () -> null;

    private record Writer(String url, String rollup) {
    }

    private record Cached(List<String> urls, Instant readAt) {
    }

    /** Reads nothing live: reports show flushed counters only. */
    public static final LiveReads OFF = new LiveReads();

    private LiveReads() {
        this.aggregators = List::of;
        this.days = null;
        this.clock = Clock.systemUTC();
        this.timeout = Duration.ZERO;
        this.http = null;
        this.misses = null;
        this.rows = null;
        this.askSeconds = null;
    }

    /**
     * @param aggregators the aggregators' heartbeat rows ({@code HeartbeatStore::aggregators})
     * @param closedDays  the days in [from, to] closing or reconciled ({@code DayStatusStore::closedDays})
     * @param timeout     deadline of each step's calls
     */
    public LiveReads(Supplier<List<AggregatorState>> aggregators, BiFunction<LocalDate, LocalDate, Set<LocalDate>> closedDays,
                     Clock clock, Duration timeout, Metrics metrics) {
        this.aggregators = aggregators;
        this.clock = clock;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
        this.misses = metrics.counter("adreport_report_live_misses_total",
                "Live-counts calls to an aggregator that failed, timed out or found its writer changed (the report then "
                        + "shows that aggregator's counts as of its last flush)");
        this.rows = metrics.counter("adreport_report_live_rows_total", "Counter rows whose live totals reports merged");
        this.askSeconds = metrics.histogram("adreport_report_live_seconds",
                "One step of the live-counts exchange: its calls to every live aggregator, sent to answered or timed out",
                Metrics.LATENCY_BUCKETS);
        this.days = new LiveDays(closedDays, clock, misses, metrics.counter("adreport_report_live_closed_rows_total",
                "Live rows of days closed in meta that reports left out (an aggregator that missed the day's close)"));
    }

    /** True when some aggregator is live to ask (the list read from meta, cached); never for {@link #OFF}. */
    boolean anyToAsk() {
        return http != null && !urls().isEmpty();
    }

    /** Which days can still have live counts (not for {@link #OFF}, which asks nothing). */
    LiveDays days() {
        return days;
    }

    /**
     * Step 1: the writer ids of each live aggregator (by URL) that keeps live counts of
     * {@code rollup}, its current id first, then the ids of rows it kept across start-overs (the
     * read keeps the stored cells of all of them). Ids seen before are reused without a call
     * ({@link #known}); only aggregators not seen yet for this rollup are asked.
     */
    Map<String, long[]> writers(String rollup) {
        if (http == null) {
            return Map.of();
        }
        List<String> urls = urls();
        if (urls.isEmpty()) {
            return Map.of();
        }
        Map<String, long[]> out = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        for (String url : urls) {
            long[] ids = known.get(new Writer(url, rollup));
            if (ids == null) {
                unknown.add(url);
            } else {
                out.put(url, ids);
            }
        }
        if (!unknown.isEmpty()) {
            ask(unknown, LiveCounts.Request.writerOnly(rollup)).forEach((url, a) -> {
                if (a.writer() != 0) {
                    long[] ids = a.writers(); // one array in both: totals() removes the entry by identity
                    known.put(new Writer(url, rollup), ids);
                    out.put(url, ids);
                }
            });
        }
        return out;
    }

    /**
     * Step 2: the current totals of the rows {@code request} wants, from each aggregator of
     * {@code writers} whose current writer id is still the one step 1 saw (its retained ids change
     * only when that one does).
     */
    List<LiveCounts.Answer> totals(Map<String, long[]> writers, LiveCounts.Request request) {
        if (writers.isEmpty()) {
            return List.of();
        }
        List<LiveCounts.Answer> out = new ArrayList<>();
        ask(new ArrayList<>(writers.keySet()), request).forEach((url, a) -> {
            if (a.writer() == writers.get(url)[0]) {
                out.add(a);
                rows.add(a.rows().size());
            } else {
                misses.inc(); // it started over since its id was seen: its stored cells are what the report read
                known.remove(new Writer(url, request.rollup()), writers.get(url)); // the next report asks for the new id
            }
        });
        return out;
    }

    /**
     * Asking while reading ({@link LiveCounts}, "Asking while reading"): the answers of every live
     * aggregator to {@code request}, by URL. No writer ids are needed first: the caller checks each
     * answer's writer against the rows it read. The caller starts its HBase read before this call.
     *
     * <p>The first aggregator is asked on the calling thread by a plain blocking call over a kept-
     * alive connection ({@link HttpURLConnection}); the others, if any, through the shared
     * asynchronous client at the same moment. One aggregator is the common case, and for it the
     * blocking call measured about half the latency of the asynchronous client's hand-offs
     * (its selector thread, then a completion stage, then the waiting thread: p50 0.36 against
     * 0.90 ms, p90 0.58 against 3.18 ms on a loaded 2-core machine; {@code HttpCallLatency} in
     * the benchmarks module, docs/benchmarks/2026-12-03-series-live-call.md). One deadline for all: {@code report.live.timeout.ms} from the call.
     */
    Map<String, LiveCounts.Answer> askHere(LiveCounts.Request request) {
        if (http == null) {
            return Map.of();
        }
        List<String> urls = urls();
        if (urls.isEmpty()) {
            return Map.of();
        }
        byte[] body = LiveCounts.encode(request);
        String key = credential();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Pending others = send(urls.subList(1, urls.size()), body, key);
        Map<String, LiveCounts.Answer> out = new LinkedHashMap<>();
        String first = urls.get(0);
        try {
            out.put(first, callHere(first, body, key, deadline));
        } catch (IOException | RuntimeException e) {
            misses.inc();
            LOG.debug("live counts of {} not read: {}", first, e.toString());
        }
        out.putAll(others.answers(deadline));
        askSeconds.observeNanos(System.nanoTime() - start);
        return out;
    }

    /**
     * One live-counts call on this thread. The connection goes back to the JDK's keep-alive cache
     * when the answer was read to its end; a failed one is dropped. The read timeout bounds each
     * socket read, not the whole answer: an aggregator writes its answer at once, so the two agree.
     */
    private LiveCounts.Answer callHere(String url, byte[] body, String key, long deadline) throws IOException {
        int left = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        HttpURLConnection c = (HttpURLConnection) URI.create(url + LiveCounts.PATH).toURL().openConnection();
        try {
            c.setConnectTimeout(left);
            c.setReadTimeout(left);
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            c.setFixedLengthStreamingMode(body.length);
            c.setRequestProperty("Content-Type", LiveCounts.CONTENT_TYPE);
            if (key != null) {
                c.setRequestProperty("Authorization", "Bearer " + key);
            }
            try (OutputStream o = c.getOutputStream()) {
                o.write(body);
            }
            int status = c.getResponseCode();
            if (status != 200) {
                InputStream err = c.getErrorStream();
                String text = "";
                if (err != null) {
                    try (err) {
                        text = new String(err.readAllBytes(), StandardCharsets.UTF_8);
                    }
                }
                throw new IOException("HTTP " + status + ": " + text);
            }
            try (InputStream in = c.getInputStream()) {
                return LiveCounts.decodeAnswer(in.readAllBytes());
            }
        } catch (IOException | RuntimeException e) {
            c.disconnect(); // not back into the keep-alive cache
            throw e;
        }
    }

    /** Counts an answer left out because its writer started over while the report read HBase. */
    void raced() {
        misses.inc();
    }

    /** Counts the rows of an answer merged after asking while reading. */
    void merged(LiveCounts.Answer a) {
        rows.add(a.rows().size());
    }

    /** Presents {@code key} (a key of role {@code internal}; called per exchange) to every aggregator asked. */
    public LiveReads withCredential(Supplier<String> key) {
        this.credential = key;
        return this;
    }

    private String credential() {
        try {
            return credential.get();
        } catch (RuntimeException e) { // the aggregators then answer 401: a miss, as when they are down
            LOG.warn("live counts: no internal credential to present: {}", e.toString());
            return null;
        }
    }

    private Map<String, LiveCounts.Answer> ask(List<String> urls, LiveCounts.Request request) {
        long start = System.nanoTime();
        Map<String, LiveCounts.Answer> out = send(urls, LiveCounts.encode(request), credential()).answers(start + timeout.toNanos());
        askSeconds.observeNanos(System.nanoTime() - start);
        return out;
    }

    private Pending send(List<String> urls, byte[] body, String key) {
        Map<String, CompletableFuture<HttpResponse<byte[]>>> calls = new LinkedHashMap<>();
        for (String url : urls) {
            calls.put(url, http.sendAsync(request(url, body, key), HttpResponse.BodyHandlers.ofByteArray()));
        }
        return new Pending(this, calls);
    }

    /** A live-counts call through the asynchronous client: the aggregator's route, the deadline, the credential, the body ({@link #callHere} the same on the calling thread). */
    private HttpRequest request(String url, byte[] body, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + LiveCounts.PATH)).timeout(timeout)
                .header("Content-Type", LiveCounts.CONTENT_TYPE);
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return b.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    /** Calls under way through the asynchronous client, to be awaited under one deadline. */
    private static final class Pending {
        private final LiveReads owner;
        private final Map<String, CompletableFuture<HttpResponse<byte[]>>> calls;

        private Pending(LiveReads owner, Map<String, CompletableFuture<HttpResponse<byte[]>>> calls) {
            this.owner = owner;
            this.calls = calls;
        }

        /** The answers by URL, waiting until {@code deadline} (nanoTime); a call failed or late is left out and counted. */
        Map<String, LiveCounts.Answer> answers(long deadline) {
            if (calls.isEmpty()) {
                return Map.of();
            }
            Map<String, LiveCounts.Answer> out = new LinkedHashMap<>();
            calls.forEach((url, call) -> {
                try {
                    HttpResponse<byte[]> resp = call.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (resp.statusCode() != 200) {
                        throw new IllegalStateException("HTTP " + resp.statusCode() + ": " + new String(resp.body(),
                                StandardCharsets.UTF_8));
                    }
                    out.put(url, LiveCounts.decodeAnswer(resp.body()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    call.cancel(true);
                } catch (Exception e) {
                    call.cancel(true);
                    owner.misses.inc();
                    LOG.debug("live counts of {} not read: {}", url, e.toString());
                }
            });
            return out;
        }
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
        Set<String> live = Set.copyOf(urls);
        known.keySet().removeIf(w -> !live.contains(w.url()));
        return urls;
    }
}
