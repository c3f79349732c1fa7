package io.adreport.report.query;

import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.time.UtcDay;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which days of a report can still have live counts: the report API's side of the day close for
 * the live-counts exchange ({@link LiveReads}). Days are UTC epoch days ({@link UtcDay}).
 *
 * <p><b>Closed days, after the answers</b> ({@link #closed}). An aggregator stops counting a day
 * once it sees the day closed, and never answers rows of a day it knows closed. One that missed
 * the close (paused past its heartbeat's expiry, so the handshake went on without it: a zombie)
 * can still answer them, and the nightly job may already have folded its stored cells into the
 * corrected base cell: adding its total then would count those events twice. So after the
 * answers arrive, the live rows of days that could be closed (before today by this clock, plus
 * {@link #CLOCK_MARGIN} for a reconciler's clock ahead of it; the reconciler refuses today) are
 * checked against meta, and those of days closing or reconciled are left out
 * ({@code adreport_report_live_closed_rows_total}). Meta is read after the answers: if it still
 * says live then, no fold had begun when the counters were read, so the merge is exact. Meta
 * unreadable: those days' live rows are left out (the report may lag, never count twice).
 *
 * <p><b>Only live days, before the question</b> ({@link #firstLive}). A day once closing or
 * reconciled never opens again, so the closed days seen in meta are remembered, and a fixed
 * series asks only for the keys from its first day not known closed. This is a saving, not the
 * guard: the check after the answers still runs. So a day is only ever skipped when meta said it
 * is closed; a day meta has no row for (never closed) is live, and days from today on (less the
 * margin) are live without a look-up.
 *
 * <p>Thread-safe: the memory is a concurrent set; the last look-up is replaced whole.
 */
final class LiveDays {
    private static final Logger LOG = LoggerFactory.getLogger(LiveDays.class);
    /** How far a reconciler's clock may run ahead of this one: a day is checked in meta until this long after it ended here. */
    static final Duration CLOCK_MARGIN = Duration.ofMinutes(10);
    /** How long a look-up that found past days open is reused before meta is read again. */
    static final Duration REFRESH = Duration.ofSeconds(1);
    /** Most closed days remembered (then forgotten at once and learned again from meta). */
    private static final int MAX_KNOWN_CLOSED = 10_000;

    private final BiFunction<LocalDate, LocalDate, Set<LocalDate>> closedDays;
    private final Clock clock;
    private final Metrics.Counter misses;
    private final Metrics.Counter closedRows;
    private final Set<Long> knownClosed = ConcurrentHashMap.newKeySet();
    private volatile OpenCheck openCheck;

    /** Past days [from, to] found open in meta at {@code at}. */
    private record OpenCheck(long from, long to, Instant at) {
    }

    /**
     * @param closedDays the days in [from, to] closing or reconciled ({@code DayStatusStore::closedDays})
     * @param misses     counts a meta read that failed
     * @param closedRows counts live rows left out because their day is closed
     */
    LiveDays(BiFunction<LocalDate, LocalDate, Set<LocalDate>> closedDays, Clock clock, Metrics.Counter misses,
             Metrics.Counter closedRows) {
        this.closedDays = closedDays;
        this.clock = clock;
        this.misses = misses;
        this.closedRows = closedRows;
    }

    /** The first epoch day from which days cannot be closed yet by this clock (today, or tomorrow within the margin). */
    private long firstUnclosable() {
        return UtcDay.epochDayOf(clock.instant().plus(CLOCK_MARGIN));
    }

    /**
     * After the answers: which of the epoch days in [{@code fromDay}, {@code toDay}] are closed
     * (their live rows must be left out). Days that cannot be closed yet are not looked up.
     */
    LongPredicate closed(long fromDay, long toDay) {
        long firstUnclosable = firstUnclosable();
        if (fromDay >= firstUnclosable) {
            return day -> false;
        }
        try {
            Set<Long> closed = new HashSet<>();
            closedDays.apply(LocalDate.ofEpochDay(fromDay), LocalDate.ofEpochDay(Math.min(toDay, firstUnclosable - 1)))
                    .forEach(d -> {
                        closed.add(d.toEpochDay());
                        remember(d.toEpochDay());
                    });
            return closed::contains;
        } catch (RuntimeException e) {
            LOG.debug("day states not read from meta; live rows of past days left out: {}", e.toString());
            misses.inc();
            return day -> day < firstUnclosable;
        }
    }

    /** Counts live rows left out because their day is closed. */
    void leftOut(int rowsOfClosedDays) {
        if (rowsOfClosedDays > 0) {
            closedRows.add(rowsOfClosedDays);
        }
    }

    /**
     * Before the question: the first of the epoch days [{@code fromDay}, {@code toDay}] not known
     * closed ({@code toDay + 1} when all are). Past days not known closed are looked up in meta,
     * at most once per {@link #REFRESH} for the same days. Meta unreadable: {@code fromDay} (ask for
     * every day; the check after the answers still leaves closed days out).
     */
    long firstLive(long fromDay, long toDay) {
        long lastPast = Math.min(toDay, firstUnclosable() - 1);
        long day = skipKnownClosed(fromDay, lastPast);
        if (day > lastPast) {
            return day; // every past day known closed (or none past): the rest are live
        }
        Instant now = clock.instant();
        OpenCheck c = openCheck;
        if (c != null && c.from() == day && c.to() == lastPast && now.isBefore(c.at().plus(REFRESH)) && !now.isBefore(c.at())) {
            return day; // looked up a moment ago: still open
        }
        try {
            closedDays.apply(LocalDate.ofEpochDay(day), LocalDate.ofEpochDay(lastPast)).forEach(d -> remember(d.toEpochDay()));
        } catch (RuntimeException e) {
            LOG.debug("day states not read from meta: {}", e.toString());
            return fromDay;
        }
        long first = skipKnownClosed(day, lastPast);
        openCheck = new OpenCheck(first, lastPast, now);
        return first;
    }

    private long skipKnownClosed(long day, long lastPast) {
        while (day <= lastPast && knownClosed.contains(day)) {
            day++;
        }
        return day;
    }

    private void remember(long closedDay) {
        if (knownClosed.size() >= MAX_KNOWN_CLOSED) {
            knownClosed.clear();
        }
        knownClosed.add(closedDay);
    }
}
