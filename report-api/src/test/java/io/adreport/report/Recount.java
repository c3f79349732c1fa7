package io.adreport.report;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The test oracle: a report computed straight from the known events, sharing no code with the
 * production planner, reader or engine. Buckets are found by looking at every 15-minute instant
 * of the range in the zone, not by stepping boundaries.
 */
public final class Recount {
    /** An expected row: time string (null for all), groupBy values, metric values. */
    public record Row(String time, Map<String, String> dims, Map<String, Object> metrics) {
    }

    private Recount() {
    }

    public static List<Row> report(List<KnownEvent> events, Instant from, Instant to, String granularity, ZoneId zone,
                                   List<String> metrics, Map<String, String> filters, List<String> groupBy,
                                   String orderBy, Integer limit) {
        TreeSet<Instant> starts = new TreeSet<>();
        starts.add(from);
        for (Instant t = from; t.isBefore(to); t = t.plus(Duration.ofMinutes(15))) {
            Instant s = floor(t, granularity, zone);
            starts.add(s.isBefore(from) ? from : s);
        }
        Map<List<Object>, Map<String, Long>> sums = new LinkedHashMap<>();
        for (KnownEvent e : events) {
            if (e.ts().isBefore(from) || !e.ts().isBefore(to)) {
                continue;
            }
            if (filters.entrySet().stream().anyMatch(f -> !e.dim(f.getKey()).equals(f.getValue()))) {
                continue;
            }
            Instant bucket = granularity.equals("all") ? null : starts.floor(e.ts());
            List<Object> key = new ArrayList<>();
            key.add(bucket);
            groupBy.forEach(d -> key.add(e.dim(d)));
            Map<String, Long> s = sums.computeIfAbsent(key, k -> new LinkedHashMap<>());
            e.deltas().forEach((m, d) -> s.merge(m, d, Long::sum));
        }
        if (groupBy.isEmpty()) {
            if (granularity.equals("all")) {
                List<Object> key = new ArrayList<>();
                key.add(null);
                sums.putIfAbsent(key, new LinkedHashMap<>());
            } else {
                for (Instant s : starts) {
                    List<Object> key = new ArrayList<>();
                    key.add(s);
                    sums.putIfAbsent(key, new LinkedHashMap<>());
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        List<Instant> times = new ArrayList<>();
        for (Map.Entry<List<Object>, Map<String, Long>> e : sums.entrySet()) {
            Instant t = (Instant) e.getKey().get(0);
            Map<String, String> dims = new LinkedHashMap<>();
            for (int i = 0; i < groupBy.size(); i++) {
                dims.put(groupBy.get(i), (String) e.getKey().get(i + 1));
            }
            Map<String, Object> values = new LinkedHashMap<>();
            for (String m : metrics) {
                values.put(m, value(m, e.getValue()));
            }
            rows.add(new Row(t == null ? null : DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.atZone(zone)), dims, values));
            times.add(t);
        }
        Comparator<Row> cmp = Comparator.comparing((Row r) -> r.time() == null ? Instant.MIN
                : ZonedDateTime.parse(r.time()).toInstant());
        for (String d : groupBy) {
            cmp = cmp.thenComparing(r -> r.dims().get(d));
        }
        if (orderBy != null) {
            boolean desc = orderBy.startsWith("-");
            String k = desc ? orderBy.substring(1) : orderBy;
            Comparator<Row> primary = (a, b) -> {
                Object x = k.equals("time") ? a.time() : a.dims().containsKey(k) ? a.dims().get(k) : a.metrics().get(k);
                Object y = k.equals("time") ? b.time() : b.dims().containsKey(k) ? b.dims().get(k) : b.metrics().get(k);
                if (x == null || y == null) {
                    return x == y ? 0 : x == null ? 1 : -1; // nulls last either way
                }
                int c = k.equals("time") ? ZonedDateTime.parse((String) x).toInstant().compareTo(ZonedDateTime.parse((String) y).toInstant())
                        : x instanceof String sx ? sx.compareTo((String) y)
                        : Double.compare(((Number) x).doubleValue(), ((Number) y).doubleValue());
                return desc ? -c : c;
            };
            cmp = primary.thenComparing(cmp);
        }
        rows.sort(cmp);
        return limit == null || rows.size() <= limit ? rows : rows.subList(0, limit);
    }

    private static Instant floor(Instant t, String granularity, ZoneId zone) {
        ZonedDateTime z = t.atZone(zone);
        return switch (granularity) {
            case "hour" -> z.truncatedTo(ChronoUnit.HOURS).toInstant();
            case "day" -> z.toLocalDate().atStartOfDay(zone).toInstant();
            case "month" -> z.toLocalDate().withDayOfMonth(1).atStartOfDay(zone).toInstant();
            case "all" -> Instant.MIN;
            default -> throw new IllegalArgumentException(granularity);
        };
    }

    private static Object value(String metric, Map<String, Long> s) {
        long impressions = s.getOrDefault("impressions", 0L);
        long clicks = s.getOrDefault("clicks", 0L);
        long conversions = s.getOrDefault("conversions", 0L);
        long spend = s.getOrDefault("spendMicros", 0L);
        return switch (metric) {
            case "ctr" -> impressions == 0 ? null : (double) clicks / impressions;
            case "cvr" -> clicks == 0 ? null : (double) conversions / clicks;
            case "ecpm" -> impressions == 0 ? null : (double) spend / impressions * 0.001;
            case "cpc" -> clicks == 0 ? null : (double) spend / clicks * 0.000001;
            default -> s.getOrDefault(metric, 0L);
        };
    }
}
