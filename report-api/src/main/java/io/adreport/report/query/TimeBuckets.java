package io.adreport.report.query;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import io.adreport.http.QueryException;

/**
 * The output buckets of a report: [from, to) cut at the hour, day or month boundaries of a time
 * zone (a DST day in America/New_York is 23 or 25 hours long; Asia/Kathmandu's hours start at
 * :15 UTC). The first bucket starts at {@code from} even when {@code from} is not itself a
 * boundary, so every bucket is exactly the time its numbers cover.
 */
public final class TimeBuckets {
    private final Instant[] starts;
    private final Instant end;
    private final long[] startMinutes;

    private TimeBuckets(List<Instant> starts, Instant end) {
        this.starts = starts.toArray(Instant[]::new);
        this.end = end;
        this.startMinutes = new long[this.starts.length];
        for (int i = 0; i < this.starts.length; i++) {
            startMinutes[i] = Math.floorDiv(this.starts[i].getEpochSecond(), 60);
        }
    }

    /**
     * Cuts [from, to) into buckets of {@code g} in {@code zone}.
     *
     * @throws QueryException naming {@code granularity} when there would be more than {@code max}
     */
    public static TimeBuckets cut(Instant from, Instant to, ReportGranularity g, ZoneId zone, int max) {
        List<Instant> starts = new ArrayList<>();
        starts.add(from);
        if (g != ReportGranularity.ALL) {
            ZonedDateTime b = next(floor(from.atZone(zone), g), g);
            while (b.toInstant().isBefore(to)) {
                if (b.toInstant().isAfter(from)) {
                    starts.add(b.toInstant());
                }
                if (starts.size() > max) {
                    throw new QueryException("granularity", "the range has more than " + max
                            + " " + g.label() + " buckets; choose a coarser granularity or a shorter range");
                }
                b = next(b, g);
            }
        }
        return new TimeBuckets(starts, to);
    }

    private static ZonedDateTime floor(ZonedDateTime t, ReportGranularity g) {
        return switch (g) {
            case HOUR -> t.truncatedTo(ChronoUnit.HOURS);
            case DAY -> t.toLocalDate().atStartOfDay(t.getZone());
            case MONTH -> t.toLocalDate().withDayOfMonth(1).atStartOfDay(t.getZone());
            case ALL -> t;
        };
    }

    private static ZonedDateTime next(ZonedDateTime b, ReportGranularity g) {
        return switch (g) {
            // plusHours works on the instant time-line, so a repeated local hour (DST end) is a
            // bucket of its own; flooring again keeps odd zones on their local hour boundaries
            case HOUR -> floor(b.plusHours(1), g);
            case DAY -> b.toLocalDate().plusDays(1).atStartOfDay(b.getZone());
            case MONTH -> b.toLocalDate().withDayOfMonth(1).plusMonths(1).atStartOfDay(b.getZone());
            case ALL -> throw new IllegalStateException("ALL has no next bucket");
        };
    }

    public int size() {
        return starts.length;
    }

    public Instant start(int i) {
        return starts[i];
    }

    public Instant end() {
        return end;
    }

    /** Every boundary: each bucket start and the end. */
    public List<Instant> boundaries() {
        List<Instant> out = new ArrayList<>(Arrays.asList(starts));
        out.add(end);
        return out;
    }

    /** Index of the bucket holding epoch minute {@code minute}, or -1 outside [from, to). */
    public int indexOf(long minute) {
        if (minute < startMinutes[0] || minute >= Math.floorDiv(end.getEpochSecond(), 60)) {
            return -1;
        }
        int i = Arrays.binarySearch(startMinutes, minute);
        return i >= 0 ? i : -i - 2;
    }
}
