package io.adreport.reconcile.job;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The days one reconcile command covers: {@code --day D}, or {@code --from D1 --to D2} (both
 * included, oldest first). The one parser of these flags, shared by {@code bin/adreport
 * reconcile} and the {@code hadoop jar} tool, so both accept and reject the same input with the
 * same messages.
 *
 * @param from   first day
 * @param to     last day, not before {@code from}
 * @param oneDay given as {@code --day} (the caller prints the full drift report), not as a range
 *               (one line per day)
 */
public record DayRange(LocalDate from, LocalDate to, boolean oneDay) {
    /** Longest range of one command: a year of days. */
    public static final int MAX_DAYS = 366;

    public DayRange {
        if (from == null || to == null) {
            throw new IllegalArgumentException("reconcile --from needs --to (and --to needs --from): YYYY-MM-DD, both included");
        }
        if (to.isBefore(from)) {
            throw new IllegalArgumentException("--to: must not be before --from (" + from + "), not " + to);
        }
        long days = ChronoUnit.DAYS.between(from, to) + 1;
        if (days > MAX_DAYS) {
            throw new IllegalArgumentException("--to: at most " + MAX_DAYS + " days from --from, not " + days);
        }
        if (oneDay && !from.equals(to)) {
            throw new IllegalArgumentException("--day: one day, not " + from + " .. " + to);
        }
    }

    public static DayRange of(LocalDate day) {
        return new DayRange(day, day, true);
    }

    /**
     * The range given by the flags' texts (null when a flag is absent); throws
     * {@link IllegalArgumentException} naming the flag and the rule.
     */
    public static DayRange parse(String day, String from, String to) {
        if (day == null && from == null && to == null) {
            throw new IllegalArgumentException("reconcile needs --day YYYY-MM-DD");
        }
        if (day != null && (from != null || to != null)) {
            throw new IllegalArgumentException("reconcile takes --day or --from and --to, not both");
        }
        if (day != null) {
            return of(parseDay("--day", day));
        }
        return new DayRange(from == null ? null : parseDay("--from", from), to == null ? null : parseDay("--to", to), false);
    }

    public static LocalDate parseDay(String flag, String text) {
        try {
            return LocalDate.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(flag + ": must be a date YYYY-MM-DD, not '" + text + "'");
        }
    }

    /** Number of days, at least 1. */
    public int size() {
        return (int) ChronoUnit.DAYS.between(from, to) + 1;
    }

    /** The days, oldest first. */
    public List<LocalDate> days() {
        List<LocalDate> out = new ArrayList<>(size());
        for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
            out.add(d);
        }
        return out;
    }

    @Override
    public String toString() {
        return oneDay ? from.toString() : from + " .. " + to;
    }
}
