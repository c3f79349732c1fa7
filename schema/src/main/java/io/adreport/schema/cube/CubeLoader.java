package io.adreport.schema.cube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a cube file (YAML or JSON; JSON is YAML) and validates it completely before anything
 * uses it. Every error names the file, the entry (as a path such as {@code rollups[2].tenant})
 * and the rule broken. The format is documented in {@code docs/CUBE.md}.
 */
public final class CubeLoader {

    /** Class-path location of the default ads cube. */
    public static final String DEFAULT_RESOURCE = "/io/adreport/schema/cube/ads.yaml";

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,63}");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final String source;

    private CubeLoader(String source) {
        this.source = source;
    }

    /** The default ads cube shipped with the project. */
    public static Cube defaultCube() {
        return defaultSource().parse();
    }

    /** The text of the default ads cube, as shipped in the class path. */
    public static CubeSource defaultSource() {
        try (InputStream in = CubeLoader.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(DEFAULT_RESOURCE + " is missing from the class path");
            }
            return new CubeSource("ads.yaml (built in)", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Cube load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new CubeException(file + ": cannot read cube file: " + e.getMessage(), e);
        }
        return parse(file.toString(), text);
    }

    /** Parses cube text; {@code source} names it in error messages. The cube keeps the text. */
    public static Cube parse(String source, String text) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (IOException e) {
            throw new CubeException(source + ": not valid YAML or JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
        return new CubeLoader(source).parse(root, new CubeSource(source, text));
    }

    private Cube parse(JsonNode root, CubeSource text) {
        if (root == null || !root.isObject()) {
            throw fail("(top level)", "must be a mapping");
        }
        allowOnly(root, "(top level)", "name", "saltBuckets", "rawSaltBuckets", "rawTtlDays",
                "maxValueLength", "event", "dimensions", "numericFields", "metrics", "derived", "rollups");
        String name = name(root, "name", "name");
        int salt = intIn(root, "saltBuckets", "", 16, 1, 256);
        int rawSalt = intIn(root, "rawSaltBuckets", "", 16, 1, 256);
        int rawTtl = intIn(root, "rawTtlDays", "", 400, 1, 100_000);
        int maxLen = intIn(root, "maxValueLength", "", 128, 1, 4096);

        List<Dimension> dimensions = dimensions(root.path("dimensions"));
        Set<String> dimNames = new HashSet<>();
        dimensions.forEach(d -> dimNames.add(d.name()));
        List<NumericField> numeric = numericFields(root.path("numericFields"), dimNames);
        EventSpec event = event(root.path("event"), dimNames);
        List<Metric> metrics = metrics(root.path("metrics"), event, numeric);
        Set<String> metricNames = new HashSet<>();
        metrics.forEach(m -> metricNames.add(m.name()));
        List<DerivedMetric> derived = derived(root.path("derived"), metricNames);
        List<Rollup> rollups = rollups(root.path("rollups"), dimNames);
        return new Cube(name, event, dimensions, numeric, metrics, derived, rollups, salt, rawSalt, rawTtl, maxLen, text);
    }

    private EventSpec event(JsonNode node, Set<String> dimNames) {
        String at = "event";
        if (!node.isObject()) {
            throw fail(at, "is required and must be a mapping");
        }
        allowOnly(node, at, "typeField", "types", "idField", "timeField", "join", "hashedFields");
        String typeField = optText(node, "typeField", at + ".typeField");
        List<String> types = new ArrayList<>();
        if (typeField != null) {
            JsonNode t = node.path("types");
            if (!t.isArray() || t.isEmpty()) {
                throw fail(at + ".types", "must list at least one type when typeField is set");
            }
            for (int i = 0; i < t.size(); i++) {
                types.add(nameValue(t.get(i), at + ".types[" + i + "]"));
            }
        } else if (node.has("types")) {
            throw fail(at + ".types", "needs typeField");
        }
        String idField = optText(node, "idField", at + ".idField");
        String timeField = optText(node, "timeField", at + ".timeField");
        if (timeField == null) {
            throw fail(at + ".timeField", "is required");
        }
        EventSpec.Join join = null;
        JsonNode j = node.path("join");
        if (!j.isMissingNode() && !j.isNull()) {
            String jat = at + ".join";
            allowOnly(j, jat, "field", "fromTypes", "targetType", "lookbackDays");
            String field = name(j, "field", jat + ".field");
            List<String> from = new ArrayList<>();
            JsonNode f = j.path("fromTypes");
            if (!f.isArray() || f.isEmpty()) {
                throw fail(jat + ".fromTypes", "must list at least one type");
            }
            for (int i = 0; i < f.size(); i++) {
                String ty = nameValue(f.get(i), jat + ".fromTypes[" + i + "]");
                if (!types.contains(ty)) {
                    throw fail(jat + ".fromTypes[" + i + "]", "'" + ty + "' is not one of event.types");
                }
                from.add(ty);
            }
            String target = name(j, "targetType", jat + ".targetType");
            if (!types.contains(target)) {
                throw fail(jat + ".targetType", "'" + target + "' is not one of event.types");
            }
            if (idField == null) {
                throw fail(jat, "needs event.idField: a join looks its target up by id");
            }
            join = new EventSpec.Join(field, from, target, intIn(j, "lookbackDays", jat + ".", 2, 0, 60));
        }
        List<String> hashed = new ArrayList<>();
        JsonNode h = node.path("hashedFields");
        for (int i = 0; i < h.size(); i++) {
            String hf = nameValue(h.get(i), at + ".hashedFields[" + i + "]");
            if (dimNames.contains(hf)) {
                throw fail(at + ".hashedFields[" + i + "]", "'" + hf + "' is a dimension; hashed fields are never stored in clear");
            }
            hashed.add(hf);
        }
        return new EventSpec(typeField, types, idField, timeField, join, hashed);
    }

    private List<Dimension> dimensions(JsonNode node) {
        if (!node.isArray()) {
            throw fail("dimensions", "is required and must be a list");
        }
        return named(node, "dimensions", List.of("name", "maxLength", "normalize", "pattern"), (at, d, name) -> {
            int maxLength = intIn(d, "maxLength", at + ".", 128, 1, 1024);
            Dimension.Normalize norm;
            String n = optText(d, "normalize", at + ".normalize");
            try {
                norm = n == null ? Dimension.Normalize.NONE : Dimension.Normalize.valueOf(n.toUpperCase());
            } catch (IllegalArgumentException e) {
                throw fail(at + ".normalize", "must be none, upper or lower, not '" + n + "'");
            }
            Pattern pattern = null;
            String p = optText(d, "pattern", at + ".pattern");
            if (p != null) {
                try {
                    pattern = Pattern.compile(p);
                } catch (PatternSyntaxException e) {
                    throw fail(at + ".pattern", "is not a valid regular expression: " + e.getDescription());
                }
            }
            return new Dimension(name, maxLength, norm, pattern);
        });
    }

    private List<NumericField> numericFields(JsonNode node, Set<String> dimNames) {
        List<NumericField> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String at = "numericFields[" + i + "]";
            JsonNode f = node.get(i);
            allowOnly(f, at, "name", "min");
            String name = name(f, "name", at + ".name");
            if (dimNames.contains(name)) {
                throw fail(at + ".name", "'" + name + "' is already a dimension");
            }
            long min = f.has("min") ? f.get("min").asLong() : Long.MIN_VALUE;
            out.add(new NumericField(name, min));
        }
        return out;
    }

    private List<Metric> metrics(JsonNode node, EventSpec event, List<NumericField> numeric) {
        if (!node.isArray() || node.isEmpty()) {
            throw fail("metrics", "must list at least one metric");
        }
        return named(node, "metrics", List.of("name", "count", "sum", "eventType", "unattributed"), (at, m, name) -> {
            boolean count = m.path("count").asBoolean(false);
            String sum = optText(m, "sum", at + ".sum");
            if (count == (sum != null)) {
                throw fail(at, "needs exactly one of 'count: true' or 'sum: FIELD'");
            }
            if (sum != null && numeric.stream().noneMatch(f -> f.name().equals(sum))) {
                throw fail(at + ".sum", "'" + sum + "' is not one of numericFields");
            }
            String type = optText(m, "eventType", at + ".eventType");
            if (type != null && !event.types().contains(type)) {
                throw fail(at + ".eventType", "'" + type + "' is not one of event.types");
            }
            boolean unattributed = m.path("unattributed").asBoolean(false);
            if (unattributed && (event.join() == null || type == null || !event.join().appliesTo(type))) {
                throw fail(at + ".unattributed", "needs an eventType that event.join applies to");
            }
            return new Metric(name, count ? Metric.Kind.COUNT : Metric.Kind.SUM, sum, type, unattributed);
        });
    }

    private List<DerivedMetric> derived(JsonNode node, Set<String> metricNames) {
        List<DerivedMetric> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String at = "derived[" + i + "]";
            JsonNode d = node.get(i);
            allowOnly(d, at, "name", "numerator", "denominator", "scale");
            String name = name(d, "name", at + ".name");
            if (metricNames.contains(name)) {
                throw fail(at + ".name", "'" + name + "' is already a stored metric");
            }
            String num = name(d, "numerator", at + ".numerator");
            String den = name(d, "denominator", at + ".denominator");
            for (String[] ref : new String[][] {{num, "numerator"}, {den, "denominator"}}) {
                if (!metricNames.contains(ref[0])) {
                    throw fail(at + "." + ref[1], "'" + ref[0] + "' is not one of metrics");
                }
            }
            out.add(new DerivedMetric(name, num, den, d.path("scale").asDouble(1.0)));
        }
        return out;
    }

    private List<Rollup> rollups(JsonNode node, Set<String> dimNames) {
        if (!node.isArray() || node.isEmpty()) {
            throw fail("rollups", "must list at least one rollup");
        }
        return named(node, "rollups", List.of("name", "dimensions", "tenant", "granularities", "ttlDays"), (at, r, name) -> {
            List<String> dims = new ArrayList<>();
            JsonNode ds = r.path("dimensions");
            if (!ds.isArray()) {
                throw fail(at + ".dimensions", "is required and must be a list (empty for a total)");
            }
            for (int k = 0; k < ds.size(); k++) {
                String dim = nameValue(ds.get(k), at + ".dimensions[" + k + "]");
                if (!dimNames.contains(dim)) {
                    throw fail(at + ".dimensions[" + k + "]", "'" + dim + "' is not one of dimensions");
                }
                if (dims.contains(dim)) {
                    throw fail(at + ".dimensions[" + k + "]", "'" + dim + "' is listed twice");
                }
                dims.add(dim);
            }
            String tenant = optText(r, "tenant", at + ".tenant");
            if (tenant != null && (dims.isEmpty() || !dims.get(0).equals(tenant))) {
                throw fail(at + ".tenant", "'" + tenant + "' must be the rollup's first dimension");
            }
            List<Granularity> grans = new ArrayList<>();
            JsonNode gs = r.path("granularities");
            if (gs.isMissingNode()) {
                grans.addAll(List.of(Granularity.MINUTES_15, Granularity.HOUR, Granularity.DAY));
            } else {
                for (int k = 0; k < gs.size(); k++) {
                    try {
                        Granularity g = Granularity.fromLabel(gs.get(k).asText());
                        if (!grans.contains(g)) {
                            grans.add(g);
                        }
                    } catch (IllegalArgumentException e) {
                        throw fail(at + ".granularities[" + k + "]", e.getMessage());
                    }
                }
                if (!grans.contains(Granularity.MINUTES_15)) {
                    throw fail(at + ".granularities", "must include 15m so that days can be cut in any time zone");
                }
            }
            return new Rollup(name, dims, tenant, grans, intIn(r, "ttlDays", at + ".", 400, 1, 100_000));
        });
    }

    /** Reads one entry of a list of named declarations, given where it is ({@code metrics[2]}) and its name. */
    private interface Entry<T> {
        T read(String at, JsonNode node, String name);
    }

    /**
     * The entries of the list {@code node} (at {@code field}), in order: each may hold only
     * {@code keys}, needs a name that no earlier entry has, and is then read by {@code entry}.
     */
    private <T> List<T> named(JsonNode node, String field, List<String> keys, Entry<T> entry) {
        List<T> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < node.size(); i++) {
            String at = field + "[" + i + "]";
            JsonNode n = node.get(i);
            allowOnly(n, at, keys.toArray(String[]::new));
            String name = name(n, "name", at + ".name");
            if (!seen.add(name)) {
                throw fail(at + ".name", "'" + name + "' is declared twice");
            }
            out.add(entry.read(at, n, name));
        }
        return out;
    }

    // --- small helpers -------------------------------------------------------------------

    private void allowOnly(JsonNode node, String at, String... allowed) {
        if (!node.isObject()) {
            throw fail(at, "must be a mapping");
        }
        Set<String> ok = Set.of(allowed);
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!ok.contains(f)) {
                throw fail(at + "." + f, "unknown entry (allowed: " + String.join(", ", allowed) + ")");
            }
        }
    }

    private String name(JsonNode node, String field, String at) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw fail(at, "is required");
        }
        return nameValue(v, at);
    }

    private String nameValue(JsonNode v, String at) {
        if (v == null || !v.isTextual() || !NAME.matcher(v.asText()).matches()) {
            throw fail(at, "must be a name: a letter, then letters, digits or _ (at most 64)");
        }
        return v.asText();
    }

    private String optText(JsonNode node, String field, String at) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() || v.asText().isEmpty()) {
            throw fail(at, "must be a non-empty string");
        }
        return v.asText();
    }

    /** An optional integer entry; {@code prefix} is the entry's path up to the field ("rollups[2]."). */
    private int intIn(JsonNode node, String field, String prefix, int dflt, int min, int max) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isIntegralNumber() || v.asLong() < min || v.asLong() > max) {
            throw fail(prefix + field, "must be an integer in " + min + ".." + max + ", not " + v);
        }
        return v.asInt();
    }

    private CubeException fail(String at, String rule) {
        return new CubeException(source + ": " + at + ": " + rule);
    }
}
