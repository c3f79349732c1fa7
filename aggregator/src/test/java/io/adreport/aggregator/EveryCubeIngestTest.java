package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.EventSpec;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.NumericField;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.Datasets;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.hbase.client.Admin;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every cube adreport ships — the default ads cube and each example in {@code docs/examples} —
 * takes events through the ingest endpoint, and the stored counters equal a recount made here.
 *
 * <p>The events are generated from the cube's declared shape (with or without a type field, an
 * id field, a join, hashed fields), so a shape assumption on the hot path (such as "every event
 * has a type") breaks the cube that lacks it. The recount applies the counting rules as the cube
 * format documents them (docs/CUBE.md), written out here: a metric applies to events of its type
 * (or of any type when it names none); a count adds 1, a sum the field's value; an
 * {@code unattributed} metric only counts join events whose target was not found; a join event
 * whose target was found carries the target's dimensions, one whose target was not found only
 * reaches rollups without dimensions; a missing dimension counts under ""; every granularity of a
 * rollup gets the same deltas, in the bucket of the event's minute.
 */
@ExtendWith(HBaseExtension.class)
class EveryCubeIngestTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-10-14T15:20:00Z");
    private static final long TODAY = Math.floorDiv(NOW.getEpochSecond(), 86_400);

    private final MiniHBase hbase;

    EveryCubeIngestTest(MiniHBase hbase) {
        this.hbase = hbase;
    }

    /** The default cube and every example cube, by name and YAML text. */
    static Stream<Map.Entry<String, String>> cubes() throws IOException {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            out.add(Map.entry("default ads cube", new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        }
        Path examples = Datasets.repositoryRoot().orElseThrow().resolve("docs/examples");
        try (Stream<Path> files = Files.list(examples)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                out.add(Map.entry(f.getFileName().toString(), Files.readString(f)));
            }
        }
        assertTrue(out.size() >= 2, "docs/examples holds example cubes");
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cubes")
    void events_sent_through_ingest_are_counted_exactly_as_a_recount_of_them(Map.Entry<String, String> source) throws Exception {
        // Four salt buckets: the same code paths, tables created faster on the shared mini cluster.
        Cube cube = CubeLoader.parse(source.getKey(), source.getValue().replaceAll("(?m)(\\w*[sS]altBuckets:\\s*)\\d+", "$14"));
        TableLayout layout = new TableLayout(cube, hbase.freshNamespace("cube"));
        try (Admin admin = hbase.connection().getAdmin()) {
            SchemaApplier.Report report = new SchemaApplier(layout).apply(admin, false);
            assertFalse(report.hasDrift(), report::toString);
        }
        MutableClock clock = new MutableClock(NOW);
        EventParser parser = new EventParser(cube, clock, Duration.ofDays(7),
                new DeviceHasher("every-cube-test-secret".getBytes(StandardCharsets.UTF_8)));
        Map<String, String> settings = Map.of("ingest.port", "0", "aggregator.id", "every-cube",
                "flush.interval.ms", "60000", "dayclose.poll.ms", "100");
        Traffic traffic = new Traffic(cube, new Random(cube.name().hashCode()));
        RecountOf recount = new RecountOf(cube);
        try (Aggregator agg = Aggregator.start(hbase.connection(), layout, parser, AggregatorConfig.of(settings), clock,
                TableSource.of(hbase.connection(), Duration.ofSeconds(30)), new Metrics())) {
            // Phase 1: events that name no target; phase 2: join events, half of them naming a
            // phase-1 event (attributed), half naming an id nobody sent.
            for (List<ObjectNode> phase : List.of(traffic.plain(400), traffic.joins(200))) {
                for (int from = 0; from < phase.size(); from += 150) {
                    List<ObjectNode> batch = phase.subList(from, Math.min(phase.size(), from + 150));
                    StringBuilder body = new StringBuilder();
                    for (ObjectNode e : batch) {
                        body.append(JSON.writeValueAsString(e)).append('\n');
                    }
                    HttpResponse<String> answer = TestStack.post(agg, body.toString());
                    assertEquals(200, answer.statusCode(), source.getKey() + ": " + answer.body());
                    var ack = JSON.readTree(answer.body());
                    assertEquals(0, ack.get("rejected").size(), source.getKey() + ": " + answer.body());
                    assertEquals(batch.size(), ack.get("accepted").asLong() + ack.get("duplicates").asLong(), answer.body());
                }
                phase.forEach(recount::count);
            }
            agg.flushNow();
            Map<String, Long> stored = StoredCounters.read(hbase.connection(), cube, layout, TODAY - 5, TODAY + 5);
            stored.values().removeIf(v -> v == 0);
            assertTrue(recount.expected.size() > cube.rollups().size(), "the traffic moves many counters");
            assertEquals(new TreeMap<>(recount.expected), new TreeMap<>(stored), source.getKey());
        }
    }

    /** Events of a cube's declared shape, as JSON a client would send. */
    private static final class Traffic {
        private final Cube cube;
        private final Random rnd;
        private final List<ObjectNode> targets = new ArrayList<>();
        private int ids;

        Traffic(Cube cube, Random rnd) {
            this.cube = cube;
            this.rnd = rnd;
        }

        List<ObjectNode> plain(int n) {
            EventSpec spec = cube.event();
            List<String> types = spec.types().stream().filter(t -> spec.join() == null || !spec.join().appliesTo(t)).toList();
            List<ObjectNode> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ObjectNode e = event(types.isEmpty() ? null : types.get(rnd.nextInt(types.size())));
                for (Dimension d : cube.dimensions()) {
                    if (rnd.nextInt(10) > 0) { // now and then a dimension is missing
                        e.put(d.name(), value(d));
                    }
                }
                for (NumericField f : cube.numericFields()) {
                    e.put(f.name(), rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(5_000));
                }
                for (String hashed : spec.hashedFields()) {
                    e.put(hashed, "device-" + rnd.nextInt(20));
                }
                if (spec.join() != null && spec.join().targetType().equals(e.path(spec.typeField()).asText(null))) {
                    targets.add(e);
                }
                out.add(e);
            }
            return out;
        }

        List<ObjectNode> joins(int n) {
            EventSpec.Join join = cube.event().join();
            List<ObjectNode> out = new ArrayList<>();
            if (join == null || targets.isEmpty()) {
                return out;
            }
            for (int i = 0; i < n; i++) {
                ObjectNode e = event(join.fromTypes().get(rnd.nextInt(join.fromTypes().size())));
                boolean known = rnd.nextBoolean();
                e.put(join.field(), known ? targets.get(rnd.nextInt(targets.size())).get(cube.event().idField()).asText()
                        : "never-sent-" + i);
                for (NumericField f : cube.numericFields()) {
                    e.put(f.name(), rnd.nextInt(3) == 0 ? 0 : 1 + rnd.nextInt(5_000));
                }
                out.add(e);
            }
            return out;
        }

        /** An event at a minute of today before now (type and id only where the cube has those fields). */
        private ObjectNode event(String type) {
            EventSpec spec = cube.event();
            ObjectNode e = JSON.createObjectNode();
            long secondsToday = Math.floorMod(NOW.getEpochSecond(), 86_400);
            e.put(spec.timeField(), NOW.minusSeconds(1 + rnd.nextInt((int) secondsToday)).toString());
            if (spec.typeField() != null) {
                e.put(spec.typeField(), type);
            }
            if (spec.idField() != null) {
                e.put(spec.idField(), "ev-" + (ids++));
            }
            return e;
        }

        private String value(Dimension d) {
            String[] pool = d.pattern() != null ? new String[] {"US", "DE", "FR"} : new String[] {"a", "b", "c", "d"};
            return pool[rnd.nextInt(pool.length)];
        }
    }

    /** The oracle: the cube's counting rules applied to the events as sent, sharing no code with the fan-out. */
    private static final class RecountOf {
        final Map<String, Long> expected = new HashMap<>();
        private final Cube cube;
        private final Map<String, ObjectNode> byId = new HashMap<>();
        /** For a cube without an id field: events equal in every field are one event (the id is their content). */
        private final java.util.Set<ObjectNode> seenContent = new java.util.HashSet<>();

        RecountOf(Cube cube) {
            this.cube = cube;
        }

        void count(ObjectNode e) {
            EventSpec spec = cube.event();
            if (spec.idField() == null && !seenContent.add(e)) {
                return;
            }
            String type = spec.typeField() == null ? null : e.get(spec.typeField()).asText();
            boolean joinEvent = spec.join() != null && spec.join().fromTypes().contains(type);
            ObjectNode target = joinEvent ? byId.get(e.get(spec.join().field()).asText()) : null;
            boolean unattributed = joinEvent && target == null;
            ObjectNode dims = joinEvent ? target : e;
            Instant ts = Instant.parse(e.get(spec.timeField()).asText());
            for (Metric m : cube.metrics()) {
                if ((m.eventType() != null && !m.eventType().equals(type)) || (m.unattributed() && !unattributed)) {
                    continue;
                }
                long delta = m.kind() == Metric.Kind.COUNT ? 1 : e.path(m.field()).asLong(0);
                if (delta == 0) {
                    continue;
                }
                for (Rollup r : cube.rollups()) {
                    if (unattributed && !r.dimensions().isEmpty()) {
                        continue;
                    }
                    List<String> values = new ArrayList<>();
                    for (String d : r.dimensions()) {
                        values.add(dims == null || !dims.has(d) ? "" : dims.get(d).asText());
                    }
                    for (Granularity g : r.granularities()) {
                        long minute = Math.floorDiv(ts.getEpochSecond(), 60);
                        long bucket = minute - Math.floorMod(minute, g.minutes());
                        expected.merge(StoredCounters.key(r.name(), g.label(), bucket, values, m.name()), delta, Long::sum);
                    }
                }
            }
            if (spec.idField() != null && !joinEvent) {
                byId.put(e.get(spec.idField()).asText(), e);
            }
        }
    }
}
