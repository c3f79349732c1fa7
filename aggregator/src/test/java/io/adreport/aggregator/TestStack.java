package io.adreport.aggregator;

import io.adreport.testkit.MutableClock;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.MiniHBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.client.Admin;
import java.util.Map;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * One namespace with the cube's tables on the shared mini cluster, shared by every test of the
 * JVM (creating the ten tables of a namespace costs ~20 s on a busy two-core machine). Tests
 * isolate themselves in time instead: each takes a {@link #window}, a "now" ten days away from
 * every other window, with its own clock and parser, and reads back only its own days.
 */
final class TestStack {
    static final Instant BASE = Instant.parse("2026-11-29T12:00:00Z");
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static TestStack shared;
    private static int windows;

    final MiniHBase hbase;
    final Cube cube;
    final TableLayout layout;

    static synchronized TestStack shared(MiniHBase hbase) {
        if (shared == null) {
            shared = new TestStack(hbase, "agg");
        }
        return shared;
    }

    /**
     * A stack of its own (a fresh namespace, ~20 s of table creation): for a test whose meta rows
     * (heartbeats of several instances) must not meet those of the other tests.
     */
    static TestStack fresh(MiniHBase hbase, String hint) {
        return new TestStack(hbase, hint);
    }

    /** A fresh ten-day slice of time: [now - 5 days, now + 5 days) belongs to the caller alone. */
    Window window() {
        int i;
        synchronized (TestStack.class) {
            i = windows++;
        }
        return new Window(BASE.minus(Duration.ofDays(10L * i)));
    }

    private TestStack(MiniHBase hbase, String hint) {
        this.hbase = hbase;
        // Four salt buckets instead of sixteen: the same code paths, tables created four times faster. Parsed from
        // the default cube's text so that the nightly job (which reads the cube from its source) can run on it.
        try (java.io.InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            this.cube = CubeLoader.parse("ads.yaml with 4 buckets", yaml.replace("Buckets: 16", "Buckets: 4"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.layout = new TableLayout(cube, hbase.freshNamespace(hint));
        createTables();
    }

    /**
     * The layout's tables, created concurrently (one {@code SchemaApplier} run creates them one
     * after another, ~2 s each on the mini cluster); then {@code SchemaApplier} verifies them.
     */
    private void createTables() {
        try (Admin admin = hbase.connection().getAdmin()) {
            admin.createNamespace(NamespaceDescriptor.create(layout.namespace()).build());
            List<Future<Void>> pending = new ArrayList<>();
            for (TableLayout.Spec spec : layout.specs()) {
                pending.add(spec.splits().length == 0 ? admin.createTableAsync(spec.descriptor())
                        : admin.createTableAsync(spec.descriptor(), spec.splits()));
            }
            for (Future<Void> f : pending) {
                f.get(120, TimeUnit.SECONDS);
            }
            SchemaApplier.Report report = new SchemaApplier(layout).apply(admin, false);
            if (report.hasDrift() || report.count(SchemaApplier.Action.OK) != layout.specs().size()) {
                throw new IllegalStateException("tables differ from the layout: " + report);
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the tables of " + layout.namespace(), e);
        }
    }

    static HttpResponse<String> post(Aggregator agg, String body) {
        return send(HttpRequest.newBuilder(URI.create("http://localhost:" + agg.port() + "/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    static HttpResponse<String> get(Aggregator agg, String pathAndQuery) {
        return send(HttpRequest.newBuilder(URI.create("http://localhost:" + agg.port() + pathAndQuery)).GET().build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A test's own slice of time with its clock and parser. */
    final class Window {
        final Instant now;
        final MutableClock clock;
        final EventParser parser;
        private final long fromDay;
        private final long toDay;

        Window(Instant now) {
            this.now = now;
            this.clock = new MutableClock(now);
            this.parser = new EventParser(cube, clock, Duration.ofDays(7),
                    new DeviceHasher("0123456789abcdef-test".getBytes(StandardCharsets.UTF_8)));
            long today = Math.floorDiv(now.getEpochSecond(), 86_400);
            this.fromDay = today - 5;
            this.toDay = today + 5;
        }

        TableLayout layout() {
            return layout;
        }

        MiniHBase hbase() {
            return hbase;
        }

        Aggregator start(Map<String, String> settings) {
            return start(settings, TableSource.of(hbase.connection(), Duration.ofSeconds(30)));
        }

        Aggregator start(Map<String, String> settings, TableSource tables) {
            Map<String, String> s = new HashMap<>(Map.of("ingest.port", "0", "aggregator.id", "agg-test-" + fromDay,
                    "flush.interval.ms", "60000", "dayclose.poll.ms", "100"));
            s.putAll(settings);
            Map<String, String> trust = new HashMap<>();
            io.adreport.schema.trust.TrustConfig.DEF.settings().forEach(d -> {
                if (s.containsKey(d.name())) {
                    trust.put(d.name(), s.remove(d.name()));
                }
            });
            return Aggregator.start(hbase.connection(), layout, parser, AggregatorConfig.of(s), clock, tables, new Metrics(),
                    io.adreport.schema.profile.ProfileConfig.defaults(), io.adreport.schema.trust.TrustConfig.of(trust));
        }

        /** Adds a region observer (a coprocessor class on the test classpath) to the raw table, once. */
        void observeRaw(Class<?> observer) {
            try (Admin admin = hbase.connection().getAdmin()) {
                var raw = admin.getDescriptor(layout.rawTable());
                if (!raw.hasCoprocessor(observer.getName())) {
                    admin.modifyTable(org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(raw).setCoprocessor(observer.getName()).build());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Every counter cell of the window's days (see {@link StoredCounters}). */
        Map<String, Long> counters() {
            return StoredCounters.read(hbase.connection(), cube, layout, fromDay, toDay);
        }

        /** Raw rows: "type/id" → e:dup count. */
        Map<String, Long> rawRows() {
            RowKeyCodec codec = new RowKeyCodec(cube);
            Map<String, Long> out = new HashMap<>();
            try (Table t = hbase.connection().getTable(layout.rawTable()); ResultScanner rs = t.getScanner(new Scan())) {
                for (Result r : rs) {
                    var k = codec.parseRawKey(r.getRow());
                    if (k.epochDay() < fromDay || k.epochDay() >= toDay) {
                        continue;
                    }
                    out.put(k.type() + "/" + k.id(), io.adreport.schema.event.RawEventCodec.duplicates(r));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out;
        }
    }
}
