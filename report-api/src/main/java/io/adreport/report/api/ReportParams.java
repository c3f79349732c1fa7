package io.adreport.report.api;

import static io.adreport.http.ErrorMapper.badParam;

import io.adreport.http.ApiRoute.Param;
import io.adreport.report.query.ReportGranularity;
import io.adreport.report.query.ReportQuery;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.DerivedMetric;
import io.adreport.schema.cube.Rollup;
import io.javalin.http.Context;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The parameters of {@code GET /v1/reports/{rollup}}: their documentation and their validation,
 * side by side. Every rule failure is a 400 naming the parameter.
 */
final class ReportParams {
    static final String FROM = "from";
    static final String TO = "to";
    static final String GRANULARITY = "granularity";
    static final String TZ = "tz";
    static final String METRICS = "metrics";
    static final String GROUP_BY = "groupBy";
    static final String ORDER_BY = "orderBy";
    static final String LIMIT = "limit";
    static final String FORMAT = "format";
    private static final Set<String> NAMED = Set.of(FROM, TO, GRANULARITY, TZ, METRICS, GROUP_BY, ORDER_BY, LIMIT, FORMAT);
    /** Longest accepted range: bounds the days map and the stored buckets of one series. */
    static final Duration MAX_RANGE = Duration.ofDays(3660);

    private final Cube cube;
    private final int maxLimit;

    ReportParams(Cube cube, int maxLimit) {
        this.cube = cube;
        this.maxLimit = maxLimit;
    }

    /** Documentation of the parameters, including one optional filter per cube dimension. */
    List<Param> docs() {
        List<String> metricNames = allMetrics();
        List<Param> out = new ArrayList<>(List.of(
                Param.path("rollup", "rollup name, see GET /v1/rollups"),
                Param.query(FROM, "string", "start, inclusive: ISO-8601 date (start of that day in tz) or date-time, "
                        + "with an offset or in tz; must fall on a boundary of the rollup's finest stored bucket (15 minutes)").mandatory(),
                Param.query(TO, "string", "end, exclusive, same forms as from; at most " + MAX_RANGE.toDays() + " days after from").mandatory(),
                Param.query(GRANULARITY, "string", "bucket width, cut in tz; all = one row per group for the whole range")
                        .oneOf(ReportGranularity.labels()).withDefault("day"),
                Param.query(TZ, "string", "IANA time zone where hours, days and months are cut (e.g. America/New_York, Asia/Kolkata)")
                        .withDefault("UTC"),
                Param.query(METRICS, "string", "comma list of " + metricNames + "; default all"),
                Param.query(GROUP_BY, "string", "comma list of the rollup's dimensions to break down by"),
                Param.query(ORDER_BY, "string", "a requested metric, a groupBy dimension or time; prefix - for descending. "
                        + "Ties are broken by time, then dimension values, ascending"),
                Param.query(LIMIT, "integer", "top-N: the first N rows after ordering (exact), 1.." + maxLimit
                        + "; without it json answers at most report.max.result.rows rows, csv and ndjson every row"),
                Param.query(FORMAT, "string", "json: one document, capped at report.max.result.rows rows without limit; "
                        + "csv and ndjson: streamed, every row (no cap) unless orderBy or limit asks for a top-N; "
                        + "day statuses in the Adreport-Days header, and for ndjson in a final {\"rows\",\"days\"} line")
                        .oneOf(List.of("json", "csv", "ndjson")).withDefault("json")));
        for (Dimension d : cube.dimensions()) {
            out.add(Param.query(d.name(), "string", "filter: only rows whose " + d.name()
                    + " equals this value (only for rollups that have the dimension; one value)"));
        }
        return out;
    }

    String format(Context ctx) {
        return ctx.queryParamAsClass(FORMAT, String.class)
                .check(v -> v.equals("json") || v.equals("csv") || v.equals("ndjson"), "must be json, csv or ndjson").getOrDefault("json");
    }

    ReportQuery parse(Context ctx, Rollup rollup) {
        rejectUnknown(ctx, rollup);
        String tz = ctx.queryParamAsClass(TZ, String.class)
                .check(ReportParams::isZone, "must be an IANA time zone such as UTC, America/New_York or Asia/Kolkata")
                .getOrDefault("UTC");
        ZoneId zone = ZoneId.of(tz);
        Instant from = time(ctx, FROM, zone);
        Instant to = time(ctx, TO, zone);
        if (!to.isAfter(from)) {
            throw badParam(TO, "must be after from");
        }
        if (Duration.between(from, to).compareTo(MAX_RANGE) > 0) {
            throw badParam(TO, "must be at most " + MAX_RANGE.toDays() + " days after from");
        }
        ReportGranularity granularity = ReportGranularity.fromLabel(ctx.queryParamAsClass(GRANULARITY, String.class)
                .check(v -> ReportGranularity.fromLabel(v) != null, "must be one of " + String.join(", ", ReportGranularity.labels()))
                .getOrDefault("day"));
        List<String> metrics = list(ctx, METRICS, allMetrics(), "must be a comma list of " + allMetrics());
        if (metrics.isEmpty()) {
            metrics = allMetrics();
        }
        List<String> groupBy = list(ctx, GROUP_BY, rollup.dimensions(),
                "must be a comma list of dimensions of rollup " + rollup.name() + " " + rollup.dimensions());
        ReportQuery.Order order = order(ctx, metrics, groupBy);
        String limitText = ctx.queryParamAsClass(LIMIT, String.class).allowNullable()
                .check(v -> v == null || v.matches("[0-9]{1,9}") && Integer.parseInt(v) >= 1 && Integer.parseInt(v) <= maxLimit,
                        "must be an integer 1.." + maxLimit)
                .get();
        Integer limit = limitText == null ? null : Integer.valueOf(limitText);
        return new ReportQuery(rollup, from, to, granularity, zone, metrics, filters(ctx, rollup), groupBy, order, limit);
    }

    private void rejectUnknown(Context ctx, Rollup rollup) {
        for (Map.Entry<String, List<String>> e : ctx.queryParamMap().entrySet()) {
            String name = e.getKey();
            if (NAMED.contains(name) || rollup.dimensions().contains(name)) {
                if (e.getValue().size() > 1) {
                    throw badParam(name, "must be given once");
                }
                continue;
            }
            if (cube.dimension(name).isPresent()) {
                throw badParam(name, "is not a dimension of rollup " + rollup.name() + " " + rollup.dimensions());
            }
            throw badParam(name, "is not a parameter of this report; known: " + NAMED + " and the dimensions "
                    + rollup.dimensions());
        }
    }

    private static Instant time(Context ctx, String name, ZoneId zone) {
        if (ctx.queryParam(name) == null) {
            throw badParam(name, "is required (ISO-8601 date or date-time)");
        }
        String text = ctx.queryParamAsClass(name, String.class)
                .check(v -> parseTime(v, zone) != null,
                        "must be an ISO-8601 date (2026-11-29) or date-time (2026-11-29T10:00, 2026-11-29T10:00:00Z, 2026-11-29T10:00+05:30)")
                .get();
        return parseTime(text, zone);
    }

    /** A date (start of that day in {@code zone}), a date-time with offset, or a local date-time in {@code zone}. */
    static Instant parseTime(String v, ZoneId zone) {
        try {
            if (v.length() == 10) {
                return LocalDate.parse(v).atStartOfDay(zone).toInstant();
            }
            if (v.matches(".*T.* \\d\\d:\\d\\d$")) {
                v = v.replace(' ', '+'); // an unencoded '+' in a query string arrives as a space
            }
            if (v.endsWith("Z") || v.matches(".*[+-]\\d\\d:\\d\\d$")) {
                return OffsetDateTime.parse(v).toInstant();
            }
            return LocalDateTime.parse(v).atZone(zone).toInstant();
        } catch (DateTimeException e) {
            return null;
        }
    }

    private static boolean isZone(String v) {
        try {
            ZoneId.of(v);
            return true;
        } catch (DateTimeException e) {
            return false;
        }
    }

    private static List<String> list(Context ctx, String name, List<String> allowed, String rule) {
        String text = ctx.queryParamAsClass(name, String.class)
                .check(v -> v.isEmpty() || Stream.of(v.split(",", -1)).allMatch(allowed::contains), rule)
                .check(v -> v.isEmpty() || new LinkedHashSet<>(List.of(v.split(","))).size() == v.split(",").length,
                        "must not name anything twice")
                .getOrDefault("");
        return text.isEmpty() ? List.of() : List.of(text.split(","));
    }

    private static ReportQuery.Order order(Context ctx, List<String> metrics, List<String> groupBy) {
        String text = ctx.queryParamAsClass(ORDER_BY, String.class).allowNullable()
                .check(v -> {
                    if (v == null) {
                        return true;
                    }
                    String key = v.startsWith("-") ? v.substring(1) : v;
                    return key.equals("time") || metrics.contains(key) || groupBy.contains(key);
                }, "must be a requested metric " + metrics + ", a groupBy dimension " + groupBy
                        + " or time, optionally prefixed with - for descending")
                .get();
        if (text == null) {
            return null;
        }
        boolean desc = text.startsWith("-");
        return new ReportQuery.Order(desc ? text.substring(1) : text, desc);
    }

    private Map<String, String> filters(Context ctx, Rollup rollup) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : rollup.dimensions()) {
            String raw = ctx.queryParam(name);
            if (raw == null) {
                continue;
            }
            Dimension d = cube.dimension(name).orElseThrow();
            String v = d.normalizeValue(raw);
            if (v.length() > d.maxLength() || v.chars().anyMatch(Character::isISOControl)) {
                throw badParam(name, "must be at most " + d.maxLength() + " characters without control characters");
            }
            if (d.pattern() != null && !v.isEmpty() && !d.pattern().matcher(v).matches()) {
                throw badParam(name, "must match " + d.pattern().pattern());
            }
            out.put(name, v);
        }
        return out;
    }

    /** Stored metrics then derived ones, in cube order. */
    List<String> allMetrics() {
        return Stream.concat(cube.metrics().stream().map(Metric::name), cube.derived().stream().map(DerivedMetric::name)).toList();
    }
}
