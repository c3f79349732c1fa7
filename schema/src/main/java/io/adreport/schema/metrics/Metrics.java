package io.adreport.schema.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * A small metrics registry that writes the Prometheus text exposition format (version 0.0.4).
 * Counters are {@link LongAdder}s (never {@code volatile x++}); histograms have fixed buckets in
 * seconds. Label values are bounded by the callers (routes, reasons, statuses — never user
 * input). Thread-safe.
 */
public final class Metrics {
    /**
     * Default latency buckets, seconds: 0.5 ms .. 10 s, finer between 1 and 25 ms, where a
     * frequency-cap check's and an ad request's tails lie (a p99 read off 5 and 10 ms alone could
     * not tell the profile Get from the wait for a core).
     */
    public static final double[] LATENCY_BUCKETS = {0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01,
            0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final Map<String, Family> families = new ConcurrentSkipListMap<>();

    /** A monotonically increasing count. */
    public static final class Counter {
        private final LongAdder adder = new LongAdder();

        public void inc() {
            adder.increment();
        }

        public void add(long n) {
            adder.add(n);
        }

        public long get() {
            return adder.sum();
        }
    }

    /** Cumulative histogram of observations (e.g. seconds). */
    public static final class Histogram {
        private final double[] bounds;
        private final LongAdder[] counts;
        private final LongAdder count = new LongAdder();
        private final java.util.concurrent.atomic.DoubleAdder sum = new java.util.concurrent.atomic.DoubleAdder();

        Histogram(double[] bounds) {
            this.bounds = bounds.clone();
            this.counts = new LongAdder[bounds.length];
            for (int i = 0; i < bounds.length; i++) {
                counts[i] = new LongAdder();
            }
        }

        public void observe(double v) {
            for (int i = 0; i < bounds.length; i++) {
                if (v <= bounds[i]) {
                    counts[i].increment();
                    break;
                }
            }
            count.increment();
            sum.add(v);
        }

        /** Observes nanoseconds as seconds. */
        public void observeNanos(long nanos) {
            observe(nanos / 1e9);
        }

        public long count() {
            return count.sum();
        }
    }

    private record Family(String name, String help, String type, Map<String, Object> series) {
    }

    private Family family(String name, String help, String type) {
        Family f = families.computeIfAbsent(name, n -> new Family(n, help, type, new ConcurrentSkipListMap<>()));
        if (!f.type().equals(type)) {
            throw new IllegalArgumentException(name + " is already a " + f.type());
        }
        return f;
    }

    /** A counter; {@code labels} alternate name, value ("reason", "ts"). */
    public Counter counter(String name, String help, String... labels) {
        return (Counter) family(name, help, "counter").series().computeIfAbsent(labelText(labels), k -> new Counter());
    }

    public Histogram histogram(String name, String help, double[] buckets, String... labels) {
        return (Histogram) family(name, help, "histogram").series().computeIfAbsent(labelText(labels), k -> new Histogram(buckets));
    }

    public void gauge(String name, String help, DoubleSupplier value, String... labels) {
        family(name, help, "gauge").series().put(labelText(labels), value);
    }

    /** A counter whose value is read from elsewhere (e.g. a JVM counter) at each scrape. */
    public void counterFrom(String name, String help, DoubleSupplier value, String... labels) {
        family(name, help, "counter").series().put(labelText(labels), value);
    }

    /** The Prometheus text format of every series. */
    public String scrape() {
        StringBuilder sb = new StringBuilder();
        for (Family f : families.values()) {
            sb.append("# HELP ").append(f.name()).append(' ').append(f.help()).append('\n');
            sb.append("# TYPE ").append(f.name()).append(' ').append(f.type()).append('\n');
            for (Map.Entry<String, Object> e : f.series().entrySet()) {
                String labels = e.getKey();
                Object s = e.getValue();
                if (s instanceof Counter c) {
                    sb.append(f.name()).append(braces(labels)).append(' ').append(c.get()).append('\n');
                } else if (s instanceof DoubleSupplier g) {
                    sb.append(f.name()).append(braces(labels)).append(' ').append(format(g.getAsDouble())).append('\n');
                } else if (s instanceof Histogram h) {
                    long cumulative = 0;
                    for (int i = 0; i < h.bounds.length; i++) {
                        cumulative += h.counts[i].sum();
                        sb.append(f.name()).append("_bucket").append(braces(join(labels, "le=\"" + format(h.bounds[i]) + "\"")))
                                .append(' ').append(cumulative).append('\n');
                    }
                    sb.append(f.name()).append("_bucket").append(braces(join(labels, "le=\"+Inf\""))).append(' ').append(h.count()).append('\n');
                    sb.append(f.name()).append("_sum").append(braces(labels)).append(' ').append(format(h.sum.sum())).append('\n');
                    sb.append(f.name()).append("_count").append(braces(labels)).append(' ').append(h.count()).append('\n');
                }
            }
        }
        return sb.toString();
    }

    /** Content type of {@link #scrape()}. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static String labelText(String... labels) {
        if (labels.length % 2 != 0) {
            throw new IllegalArgumentException("labels come in name, value pairs");
        }
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < labels.length; i += 2) {
            parts.add(labels[i] + "=\"" + labels[i + 1].replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"");
        }
        return String.join(",", parts);
    }

    private static String join(String a, String b) {
        return a.isEmpty() ? b : a + "," + b;
    }

    private static String braces(String labels) {
        return labels.isEmpty() ? "" : "{" + labels + "}";
    }

    private static String format(double v) {
        if (v == Math.rint(v) && !Double.isInfinite(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%s", v);
    }

}
