package io.adreport.schema.time;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;

/**
 * One UTC calendar day, the unit of raw keys, dedup filters, day close and reconciliation. The
 * one place where an instant, an epoch millisecond or a counter bucket minute becomes a day:
 * {@code floor(t / day)}, so times before 1970 fall on the day before, as {@link LocalDate} has it.
 *
 * @param epochDay days since 1970-01-01 (negative before it)
 */
public record UtcDay(long epochDay) implements Comparable<UtcDay> {
    private static final long MILLIS_PER_DAY = 86_400_000L;
    private static final long MINUTES_PER_DAY = 1_440L;

    public static UtcDay ofEpochDay(long epochDay) {
        return new UtcDay(epochDay);
    }

    public static UtcDay of(Instant t) {
        return new UtcDay(Math.floorDiv(t.getEpochSecond(), 86_400L));
    }

    public static UtcDay of(LocalDate date) {
        return new UtcDay(date.toEpochDay());
    }

    /** The day of a time in epoch milliseconds; allocation-free via {@link #epochDayOfMillis}. */
    public static UtcDay ofEpochMilli(long millis) {
        return new UtcDay(epochDayOfMillis(millis));
    }

    /** Parses an ISO date ({@code 2026-11-30}); a clear error names the text and the rule. */
    public static UtcDay parse(String isoDate) {
        try {
            return of(LocalDate.parse(isoDate));
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("UTC day '" + isoDate + "' is not an ISO date (YYYY-MM-DD)", e);
        }
    }

    public static UtcDay today(Clock clock) {
        return ofEpochMilli(clock.millis());
    }

    /** The UTC date of {@code t}: the one way an instant becomes a calendar date (never {@code LocalDate.ofInstant} elsewhere). */
    public static LocalDate dateOf(Instant t) {
        return LocalDate.ofEpochDay(epochDayOf(t));
    }

    /** Today's UTC date by {@code clock}. */
    public static LocalDate dateToday(Clock clock) {
        return LocalDate.ofEpochDay(epochDayOfMillis(clock.millis()));
    }

    /** Epoch day of a time in epoch milliseconds, for per-event paths that keep a primitive. */
    public static long epochDayOfMillis(long millis) {
        return Math.floorDiv(millis, MILLIS_PER_DAY);
    }

    /** Epoch day of a time, for per-event paths that keep a primitive. */
    public static long epochDayOf(Instant t) {
        return Math.floorDiv(t.getEpochSecond(), 86_400L);
    }

    /** Epoch day of a counter bucket (minutes since the epoch, as {@code Granularity} buckets). */
    public static long epochDayOfBucketMinute(long bucketMinute) {
        return Math.floorDiv(bucketMinute, MINUTES_PER_DAY);
    }

    public LocalDate date() {
        return LocalDate.ofEpochDay(epochDay);
    }

    /** First instant of the day. */
    public Instant start() {
        return Instant.ofEpochSecond(epochDay * 86_400L);
    }

    /** First instant of the next day (exclusive end). */
    public Instant end() {
        return Instant.ofEpochSecond((epochDay + 1) * 86_400L);
    }

    /** First bucket minute of the day. */
    public long firstMinute() {
        return epochDay * MINUTES_PER_DAY;
    }

    public UtcDay plusDays(long n) {
        return new UtcDay(epochDay + n);
    }

    public UtcDay minusDays(long n) {
        return new UtcDay(epochDay - n);
    }

    @Override
    public int compareTo(UtcDay o) {
        return Long.compare(epochDay, o.epochDay);
    }

    /** ISO date, e.g. {@code 2026-11-30}. */
    @Override
    public String toString() {
        return date().toString();
    }
}
