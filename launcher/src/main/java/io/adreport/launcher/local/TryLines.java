package io.adreport.launcher.local;

import io.adreport.schema.time.UtcDay;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.adreport.http.auth.Role;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.DerivedMetric;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.EventSpec;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The {@code try:} lines of the start banner, made from the running cube so that they work for any
 * cube file, not only the ads cube:
 *
 * <ol>
 *   <li>today's hourly series of the rollup with the fewest dimensions (the whole network, or the
 *       whole stream), with the analyst key;</li>
 *   <li>a top 5 of today, grouped by the last dimension of the rollup with the most dimensions,
 *       ordered by a metric, with the tenant key when there is one whose rollups exist (the demo
 *       advertiser's), else with the analyst key;</li>
 *   <li>a POST of an example event made from the cube's type, id and time fields, the dimensions
 *       of that top-5 rollup (the tenant's own id for its dimension, so the event shows in the
 *       tenant's reports) and a summed numeric field.</li>
 * </ol>
 *
 * <p>Metrics: the first two stored counters that are not unattributed ones, counts before sums
 * ({@code impressions,clicks}; {@code edits,added}), plus the first derived ratio of the two
 * ({@code ctr}; {@code addedPerEdit}); the top 5 is ordered by the second. Cube names are
 * identifiers (the cube loader checks them), so they need no quoting in a URL. Pure functions.
 */
final class TryLines {
    static final int TOP = 5;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Tried in order for a dimension value until one fits the dimension's pattern and length. */
    private static final List<String> SAMPLE_VALUES = List.of("DE", "example", "x", "1");

    /** A key the banner prints, and whose it is. */
    record Key(String key, Role role) {}

    private TryLines() {
    }

    /**
     * @param tenant a tenant's key to use where its rollups allow, or null
     * @param now    the dates of the reports (UTC today) and the example event's time
     */
    static List<String> of(Cube cube, int port, int ingestPort, Key analyst, Key tenant, Instant now) {
        LocalDate today = UtcDay.dateOf(now);
        String range = "from=" + today + "&to=" + today.plusDays(1);
        List<String> metrics = metrics(cube);
        String metricsParam = metrics.isEmpty() ? "" : "&metrics=" + String.join(",", metrics);
        List<String> out = new ArrayList<>();

        series(cube).ifPresent(r -> out.add(curl(analyst, port, r, range + "&granularity=hour" + metricsParam)));

        Key topKey = tenant;
        Optional<Rollup> top = tenant == null ? Optional.empty() : top(cube, tenant.role());
        if (top.isEmpty()) {
            topKey = analyst;
            top = top(cube, analyst.role());
        }
        if (top.isPresent()) {
            Rollup r = top.get();
            String orderBy = storedMetrics(cube).isEmpty() ? "" : "&orderBy=-" + orderBy(cube);
            out.add(curl(topKey, port, r, range + "&granularity=all&groupBy=" + last(r) + metricsParam + orderBy + "&limit=" + TOP));
        }

        ObjectNode event = exampleEvent(cube, top.orElse(null), topKey.role(), now);
        out.add("curl -X POST --data-binary " + shellQuote(write(event)) + " http://localhost:" + ingestPort + "/v1/events");
        return out;
    }

    /** The metrics the examples ask for, as described in the class comment. */
    static List<String> metrics(Cube cube) {
        List<String> stored = storedMetrics(cube);
        List<String> out = new ArrayList<>(stored);
        cube.derived().stream()
                .filter(d -> stored.contains(d.numerator()) && stored.contains(d.denominator()))
                .map(DerivedMetric::name)
                .findFirst()
                .ifPresent(out::add);
        return out;
    }

    private static List<String> storedMetrics(Cube cube) {
        return cube.metrics().stream()
                .filter(m -> !m.unattributed())
                .sorted(Comparator.comparing(m -> m.kind() == Metric.Kind.COUNT ? 0 : 1)) // stable: cube order within a kind
                .limit(2)
                .map(Metric::name)
                .toList();
    }

    private static String orderBy(Cube cube) {
        List<String> stored = storedMetrics(cube);
        return stored.get(stored.size() - 1);
    }

    /** The rollup with the fewest dimensions; the first of them in cube order. */
    static Optional<Rollup> series(Cube cube) {
        return cube.rollups().stream().min(Comparator.comparingInt(r -> r.dimensions().size()));
    }

    /**
     * The rollup {@code role} may read with the most dimensions (the first in cube order), if it
     * has a dimension to group by besides the tenant's own.
     */
    static Optional<Rollup> top(Cube cube, Role role) {
        return cube.rollups().stream()
                .filter(r -> canRead(role, r))
                .filter(r -> r.dimensions().size() > (r.hasTenant() && !role.isAnalyst() ? 1 : 0))
                .reduce((best, r) -> r.dimensions().size() > best.dimensions().size() ? r : best);
    }

    /** The same rule as the report API's access policy: an analyst reads all, a tenant its kind's rollups. */
    private static boolean canRead(Role role, Rollup r) {
        return role.isAnalyst() || role.kind().equals(r.tenant());
    }

    /**
     * An event the cube's parser accepts: its first type that joins nothing, the id {@code my-1},
     * the time {@code now} in epoch milliseconds, a value for each dimension of {@code rollup} (the
     * tenant's id for the tenant's own dimension) and a summed numeric field.
     */
    static ObjectNode exampleEvent(Cube cube, Rollup rollup, Role role, Instant now) {
        EventSpec spec = cube.event();
        ObjectNode event = JSON.createObjectNode();
        String type = null;
        if (spec.typeField() != null && !spec.types().isEmpty()) {
            type = spec.types().stream().filter(t -> spec.join() == null || !spec.join().appliesTo(t))
                    .findFirst().orElse(spec.types().get(0));
            event.put(spec.typeField(), type);
        }
        if (spec.idField() != null) {
            event.put(spec.idField(), "my-1");
        }
        event.put(spec.timeField(), now.toEpochMilli());
        List<String> dimensions = rollup != null ? rollup.dimensions()
                : cube.dimensions().stream().map(Dimension::name).limit(3).toList();
        for (String name : dimensions) {
            Dimension d = cube.dimension(name).orElseThrow();
            String value = !role.isAnalyst() && name.equals(role.kind()) ? role.id() : sample(d);
            if (value != null) {
                event.put(name, value);
            }
        }
        String eventType = type;
        cube.metrics().stream()
                .filter(m -> m.kind() == Metric.Kind.SUM && (m.eventType() == null || m.eventType().equals(eventType)))
                .findFirst()
                .flatMap(m -> cube.numericField(m.field()))
                .ifPresent(f -> event.put(f.name(), Math.max(f.min(), 1000)));
        return event;
    }

    /** {@code my-NAME}, or else a sample that fits the dimension's pattern and length; null if none does. */
    static String sample(Dimension d) {
        List<String> candidates = new ArrayList<>();
        candidates.add("my-" + d.name());
        candidates.addAll(SAMPLE_VALUES);
        for (String c : candidates) {
            String v = d.normalizeValue(c);
            if (v.length() <= d.maxLength() && (d.pattern() == null || d.pattern().matcher(v).matches())) {
                return v;
            }
        }
        return null;
    }

    private static String curl(Key key, int port, Rollup rollup, String query) {
        return "curl -H 'Authorization: Bearer " + key.key() + "' 'http://localhost:" + port + "/v1/reports/" + rollup.name()
                + "?" + query + "'";
    }

    private static String last(Rollup r) {
        return r.dimensions().get(r.dimensions().size() - 1);
    }

    /** Single quotes for a POSIX shell: a quote inside becomes {@code '\''}. */
    static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static String write(ObjectNode n) {
        try {
            return JSON.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the example event", e); // cannot happen for these values
        }
    }
}
