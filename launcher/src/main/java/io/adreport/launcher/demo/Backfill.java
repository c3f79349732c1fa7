package io.adreport.launcher.demo;

import io.adreport.schema.time.UtcDay;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up back-fill: today from midnight to the start of the live traffic, then the previous
 * {@link DemoOptions#backfillDays()} UTC days, newest first (what the dashboard shows first fills
 * first), at the same volume as the live traffic, so that the dashboard shows whole days whose
 * chart runs on into the live hour without a step.
 *
 * <p>Volume: a window {@code [a, b)} gets {@code rate * TrafficCurve.integral(a, b)} beacons, the
 * number the live traffic would have sent in it. Windows are cut at the hours, and each gets the
 * whole beacons owed by its end minus those owed by its start (counted from its day's midnight),
 * so the parts add up exactly and an hour's count does not depend on when the back-fill ran. When
 * that volume would exceed {@link DemoOptions#backfillLimit()} (a high {@code --demo-rate}), the
 * rate is scaled down to fit and a warning says that the chart steps up where the live traffic
 * starts: start-up time is bounded whatever the rate.
 *
 * <p>Today's back-fill ends where the live traffic starts; the clicks, conversions and late
 * impressions of today's back-fill that are due after that are handed over in
 * {@link Result#carryOver()} for the live traffic to deliver.
 *
 * <p>Each day has its own generator, seeded by the seed and the day, with ids that name the day:
 * a restart re-sends the same beacons for the hours already sent (unless the back-fill was scaled
 * down), which the ingest counts as duplicates.
 *
 * <p>Concurrency: runs once, on the caller's thread (the simulator's back-fill task), with
 * generators of its own. Interrupting it ends it with an {@link InterruptedException} between two
 * batches.
 */
final class Backfill {
    private static final Logger LOG = LoggerFactory.getLogger(DemoTraffic.class);

    /** Posts one batch of back-filled beacons. */
    @FunctionalInterface
    interface Sender {
        void send(BeaconGenerator.Batch batch) throws InterruptedException;
    }

    /** @param carryOver today's generator if it still holds beacons due after the back-fill's end, else null */
    record Result(BeaconGenerator carryOver) {}

    private final DemoOptions options;
    private final Sender sender;

    Backfill(DemoOptions options, Sender sender) {
        this.options = options;
        this.sender = sender;
    }

    /** Posts the back-fill up to {@code now}, where the live traffic starts; null when the options ask for none. */
    Result run(Instant now) throws InterruptedException {
        if (options.backfillLimit() == 0 || options.rate() == 0) {
            return null;
        }
        LocalDate today = UtcDay.dateOf(now);
        double perSecond = rate(options, now);
        if (perSecond < options.rate()) {
            LOG.warn(String.format("demo traffic: a back-fill at the live rate (%,.0f/s) would post %,.0f beacons, more than the "
                    + "limit of %,d; it runs at %.3g/s instead, so the chart steps up where the live traffic starts",
                    options.rate(), options.rate() * seconds(options, now), options.backfillLimit(), perSecond));
        }
        // Today first: the day the dashboard opens on fills first.
        BeaconGenerator g = generator(today);
        Instant midnight = startOf(today);
        span(g, midnight, midnight, now, perSecond);
        for (int back = 1; back <= options.backfillDays(); back++) {
            day(today.minusDays(back), now, perSecond);
        }
        return new Result(g.held() > 0 ? g : null);
    }

    /**
     * The back-fill's beacons per second (daily mean) when it starts at {@code now}: the live
     * rate, unless that would post more than the limit; then as much less as fits.
     */
    static double rate(DemoOptions options, Instant now) {
        double seconds = seconds(options, now);
        return options.rate() * seconds <= options.backfillLimit() ? options.rate() : options.backfillLimit() / seconds;
    }

    /** The back-filled span in seconds at the average rate: the previous days plus today so far, along the curve. */
    private static double seconds(DemoOptions options, Instant now) {
        Instant midnight = now.truncatedTo(ChronoUnit.DAYS);
        return options.backfillDays() * 86_400.0 + TrafficCurve.integral(midnight, now);
    }

    private void day(LocalDate day, Instant now, double perSecond) throws InterruptedException {
        BeaconGenerator g = generator(day);
        Instant dayStart = startOf(day);
        Instant dayEnd = dayStart.plus(Duration.ofDays(1));
        span(g, dayStart, dayStart, dayEnd, perSecond);
        // Clicks, conversions and late beacons that fall after midnight, but never after the present.
        Instant lateEnd = dayEnd.plus(BeaconGenerator.MAX_LATENESS);
        Instant cutoff = now.isBefore(lateEnd) ? now : lateEnd;
        if (cutoff.isAfter(dayEnd)) {
            sender.send(g.batch(dayEnd, cutoff, 0));
        }
        g.discardHeld();
    }

    /** Posts the beacons of {@code [from, to)}, hour by hour, counted from {@code dayStart}. */
    private void span(BeaconGenerator g, Instant dayStart, Instant from, Instant to, double perSecond)
            throws InterruptedException {
        Instant t = from;
        while (t.isBefore(to)) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("closed during the back-fill");
            }
            Instant hourEnd = t.truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
            Instant end = hourEnd.isBefore(to) ? hourEnd : to;
            long budget = owedBy(dayStart, end, perSecond) - owedBy(dayStart, t, perSecond);
            sender.send(g.batch(t, end, Math.toIntExact(budget)));
            t = end;
        }
    }

    /** Whole beacons owed from {@code dayStart} to {@code t}. */
    private static long owedBy(Instant dayStart, Instant t, double perSecond) {
        return (long) Math.floor(perSecond * TrafficCurve.integral(dayStart, t));
    }

    private BeaconGenerator generator(LocalDate day) {
        return new BeaconGenerator(AdNetwork.DEFAULT,
                new SplittableRandom(AdNetwork.mix64(options.seed() ^ AdNetwork.mix64(day.toEpochDay()))),
                "b" + day.format(DateTimeFormatter.BASIC_ISO_DATE) + "-",
                options.duplicateRate(), options.lateRate(), options.malformedRate());
    }

    private static Instant startOf(LocalDate day) {
        return day.atStartOfDay().toInstant(ZoneOffset.UTC);
    }
}
