package io.adreport.client.replay;

import io.adreport.client.Delivery;
import io.adreport.client.IngestClient;
import io.adreport.client.RetryPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code adreport replay FILE}: posts a file of events to an ingest endpoint in batches, with a
 * progress line on stderr and a summary on stdout. See {@link ReplayOptions#USAGE}.
 *
 * <p>Concurrency: the reading thread builds NDJSON batches and hands each to one of
 * {@code --concurrency} senders (a semaphore bounds batches in flight, so memory stays bounded);
 * totals are {@link LongAdder}s read by the progress thread. Each batch goes through the one
 * {@link IngestClient}: 429, 5xx and I/O failures are retried by its {@link RetryPolicy}
 * ({@code Retry-After} honoured, bounded back-off; a retry is safe: ingest deduplicates), and the
 * progress line says so while it waits ({@code retrying: 500 Internal Server Error (3/10)}).
 * A 4xx fails its batch only (reported; the replay goes on). A batch the client gives up on (a
 * server that keeps failing, or cannot be reached) stops the replay: nothing more is read, the
 * batches in flight finish, and the command exits 1 naming the status and the server's message.
 */
public final class Replay {

    private final ReplayOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final Clock clock;
    private final IngestClient client;
    private final LongAdder sent = new LongAdder();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder failedBatches = new LongAdder();
    private final LongAdder failedEvents = new LongAdder();
    private final Map<String, LongAdder> reasons = new ConcurrentHashMap<>();
    private final Latencies latencies = new Latencies();
    private volatile String lastFailure;
    /** What the progress line says while a batch waits for a retry; null when nothing waits. */
    private volatile String retrying;
    /** Why the replay stopped early (a batch given up after the client's retries), or null. */
    private volatile String stopped;

    /** Thrown out of the reading loop once the replay has stopped. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super(null, null, false, false);
        }
    }

    Replay(ReplayOptions options, PrintStream out, PrintStream err, Clock clock, IngestClient.Sleeper sleeper) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.clock = clock;
        this.client = new IngestClient(URI.create(options.url()), RetryPolicy.DEFAULT, clock, sleeper);
    }

    public static void main(String[] args) {
        System.exit(run(List.of(args), System.out, System.err));
    }

    /** Runs a replay; returns the exit status (0 ok, 1 some batches failed, 2 usage error). */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return run(args, out, err, Clock.systemUTC());
    }

    /** As {@link #run(List, PrintStream, PrintStream)}; {@code clock} says what "now" is for --shift-to-now. */
    public static int run(List<String> args, PrintStream out, PrintStream err, Clock clock) {
        return run(args, out, err, clock, IngestClient.Sleeper.REAL);
    }

    /** As above; {@code sleeper} waits between retries (tests record the waits instead). */
    static int run(List<String> args, PrintStream out, PrintStream err, Clock clock, IngestClient.Sleeper sleeper) {
        ReplayOptions options;
        try {
            options = ReplayOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("replay: " + e.getMessage());
            err.println(ReplayOptions.USAGE);
            return 2;
        }
        if (options.help()) {
            out.println(ReplayOptions.USAGE);
            return 0;
        }
        try {
            return new Replay(options, out, err, clock, sleeper).replay();
        } catch (IOException e) {
            err.println("replay: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    int replay() throws IOException, InterruptedException {
        if (!Files.isRegularFile(options.file())) {
            throw new IOException(options.file() + ": no such file");
        }
        EventSource.Format format = options.format() != null ? options.format() : EventSource.detect(options.file());
        EventSource source = new EventSource(options.file(), format, options.map(), options.constants());
        String tf = options.timeField();
        // Pass 1: count events (for the progress bar) and find the newest time (for --shift-to-now).
        long[] total = {0};
        long[] newest = {Long.MIN_VALUE};
        if (options.shiftToNow()) {
            source.forEach(options.limit(), o -> {
                total[0]++;
                Long ts = EventSource.tsOf(o, tf);
                if (ts != null && ts > newest[0]) {
                    newest[0] = ts;
                }
            });
        } else {
            source.forEachText(options.limit(), line -> total[0]++);
        }
        long shift = options.shiftToNow() && newest[0] != Long.MIN_VALUE ? clock.millis() - 1000 - newest[0] : 0;
        long total_ = total[0];
        err.printf("replay: %,d events from %s (%s) to %s%s%n", total_, options.file(), format.name().toLowerCase(),
                options.url(), shift != 0 ? String.format(", times shifted by %+.1f days", shift / 86_400_000.0) : "");

        ExecutorService senders = Executors.newFixedThreadPool(options.concurrency());
        Semaphore inFlight = new Semaphore(options.concurrency() * 2);
        long start = System.nanoTime();
        Progress progress = new Progress(total_, start);
        Thread bar = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                progress.print(false);
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "replay-progress");
        bar.setDaemon(true);
        bar.start();
        try {
            List<String> batch = new ArrayList<>(options.batch());
            long[] queued = {0};
            java.util.function.Consumer<String> add = line -> {
                if (stopped != null) {
                    throw new Stopped();
                }
                batch.add(line);
                queued[0]++;
                if (batch.size() == options.batch()) {
                    dispatch(List.copyOf(batch), queued[0], start, senders, inFlight);
                    batch.clear();
                }
            };
            if (shift != 0) {
                source.forEach(options.limit(), o -> {
                    Long ts = EventSource.tsOf(o, tf);
                    if (ts != null) {
                        o.put(tf, ts + shift);
                    }
                    add.accept(o.toString());
                });
            } else {
                source.forEachText(options.limit(), add);
            }
            if (!batch.isEmpty() && stopped == null) {
                dispatch(List.copyOf(batch), queued[0], start, senders, inFlight);
            }
        } catch (Stopped s) {
            // a batch was given up: read no further, let the batches in flight finish
        } finally {
            senders.shutdown();
            senders.awaitTermination(1, TimeUnit.HOURS);
            bar.interrupt();
            bar.join();
        }
        progress.print(true);
        summary(start);
        if (stopped != null) {
            err.println("replay: stopped: " + stopped);
            return 1;
        }
        return failedBatches.sum() == 0 ? 0 : 1;
    }

    private void dispatch(List<String> lines, long queuedSoFar, long start, ExecutorService senders, Semaphore inFlight) {
        if (options.rate() > 0) {
            long due = start + (long) ((queuedSoFar - lines.size()) * 1e9 / options.rate());
            long wait = due - System.nanoTime();
            if (wait > 0) {
                sleepNanos(wait);
            }
        }
        inFlight.acquireUninterruptibly();
        senders.execute(() -> {
            try {
                if (stopped != null) {
                    return; // queued before the replay stopped: not sent
                }
                send(lines, queuedSoFar - lines.size() + 1);
            } finally {
                inFlight.release();
            }
        });
    }

    private void send(List<String> lines, long firstEvent) {
        byte[] body = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        Delivery d;
        try {
            d = client.send(body, lines.size(), (status, reason, next, max) ->
                    retrying = "retrying: " + RetryPolicy.describe(status) + " (" + next + "/" + max + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(lines, "interrupted");
            return;
        }
        retries.add(d.retries());
        retrying = null;
        if (!d.answered()) {
            String where = "events " + firstEvent + ".." + (firstEvent + lines.size() - 1)
                    + " of the file (a line number is counted within that batch)";
            fail(lines, d.status() > 0 ? "HTTP " + d.status() + " for " + where + ": " + d.error() : d.error() + " for " + where);
            if (d.status() < 0 || d.status() >= 500 || d.status() == 429) {
                stopped = d.error();
            }
            return;
        }
        latencies.record(d.lastNanos(), d.totalNanos());
        accepted.add(d.accepted());
        duplicates.add(d.duplicates());
        for (Delivery.Rejection rej : d.rejected()) {
            rejected.increment();
            reasons.computeIfAbsent(rej.error(), k -> new LongAdder()).increment();
        }
        sent.add(lines.size());
    }

    private void fail(List<String> lines, String why) {
        failedBatches.increment();
        failedEvents.add(lines.size());
        sent.add(lines.size());
        lastFailure = why.length() > 300 ? why.substring(0, 300) + "..." : why;
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void summary(long start) {
        double seconds = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
        out.printf("replayed %,d events in %.1f s (%,.0f events/s): accepted %,d, duplicates %,d, rejected %,d, "
                        + "failed %,d in %,d batches, retries %,d%n",
                sent.sum(), seconds, sent.sum() / seconds, accepted.sum(), duplicates.sum(), rejected.sum(),
                failedEvents.sum(), failedBatches.sum(), retries.sum());
        reasons.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum())).limit(5)
                .forEach(e -> out.printf("  rejected %,d x %s%n", e.getValue().sum(), e.getKey()));
        if (reasons.keySet().stream().anyMatch(r -> r.contains("accept window")) && !options.shiftToNow()) {
            out.println("  hint: historical data is older than the accept window; add --shift-to-now");
        }
        if (lastFailure != null) {
            out.println("  last failure: " + lastFailure);
        }
        latencies.print(out);
    }

    /** Request latency of answered (200) batches: the last attempt alone, and from the first attempt (with retries). */
    private static final class Latencies {
        private long[] last = new long[1024];
        private long[] total = new long[1024];
        private int n;

        synchronized void record(long lastNanos, long totalNanos) {
            if (n == last.length) {
                last = Arrays.copyOf(last, n * 2);
                total = Arrays.copyOf(total, n * 2);
            }
            last[n] = lastNanos;
            total[n++] = totalNanos;
        }

        synchronized void print(PrintStream out) {
            if (n == 0) {
                return;
            }
            long[] a = Arrays.copyOf(last, n);
            long[] t = Arrays.copyOf(total, n);
            Arrays.sort(a);
            Arrays.sort(t);
            out.printf("request latency (%,d answered batches): p50 %.0f ms, p99 %.0f ms, max %.0f ms; "
                            + "including retries after 429/503: p50 %.0f ms, p99 %.0f ms%n",
                    n, at(a, 0.50), at(a, 0.99), a[n - 1] / 1e6, at(t, 0.50), at(t, 0.99));
        }

        private static double at(long[] sorted, double q) {
            return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
        }
    }

    /** The progress line: percentage bar, events/s, totals. */
    private final class Progress {
        private final long total;
        private final long start;

        Progress(long total, long start) {
            this.total = total;
            this.start = start;
        }

        void print(boolean last) {
            long done = sent.sum();
            double seconds = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
            double share = total == 0 ? 1 : Math.min(1, (double) done / total);
            int width = 24;
            int filled = (int) Math.round(share * width);
            String waiting = retrying;
            err.printf("\r[%s%s] %5.1f%% %,9.0f ev/s  accepted %,d  duplicates %,d  rejected %,d%s%s   %s",
                    "#".repeat(filled), ".".repeat(width - filled), share * 100, done / seconds, accepted.sum(),
                    duplicates.sum(), rejected.sum(), failedEvents.sum() > 0 ? "  failed " + failedEvents.sum() : "",
                    waiting != null && !last ? "  " + waiting : "", last ? "\n" : "");
            err.flush();
        }
    }
}
