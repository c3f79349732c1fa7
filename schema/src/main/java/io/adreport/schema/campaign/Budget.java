package io.adreport.schema.campaign;

import java.time.ZoneId;

/**
 * A campaign's spending limits, in micros of the network's currency: a daily budget (the day cut
 * in the advertiser's {@code timeZone}) and a lifetime budget. Either may be absent (0), not both.
 *
 * @param dailyMicros    most spend per advertiser day, or 0 for none
 * @param lifetimeMicros most spend over the campaign's life, or 0 for none
 * @param timeZone       the zone in which "today" is cut (IANA id; default UTC)
 */
public record Budget(long dailyMicros, long lifetimeMicros, ZoneId timeZone) {
    /** The default zone of a budget. */
    public static final ZoneId UTC = ZoneId.of("UTC");
    /** Largest budget accepted: 10^15 micros (a billion currency units); sums stay far from overflow. */
    public static final long MAX_MICROS = 1_000_000_000_000_000L;

    public Budget {
        check("budget.dailyMicros", dailyMicros);
        check("budget.lifetimeMicros", lifetimeMicros);
        if (dailyMicros == 0 && lifetimeMicros == 0) {
            throw new CampaignInvalid("budget", "must set dailyMicros or lifetimeMicros (or leave budget out)");
        }
        if (timeZone == null) {
            timeZone = UTC;
        }
    }

    public boolean hasDaily() {
        return dailyMicros > 0;
    }

    public boolean hasLifetime() {
        return lifetimeMicros > 0;
    }

    private static void check(String field, long micros) {
        if (micros < 0 || micros > MAX_MICROS) {
            throw new CampaignInvalid(field, "must be an integer between 1 and " + MAX_MICROS + " (micros), or absent");
        }
    }

    /** The advertiser's budget day holding a time: [startMillis, endMillis) in epoch ms. */
    public record Day(java.time.LocalDate date, long startMillis, long endMillis) {
        public long lengthMillis() {
            return endMillis - startMillis;
        }
    }

    /**
     * The budget day (cut in {@link #timeZone}) holding {@code epochMillis}: the one rule for what
     * "today" means for a daily budget, read by the budget status and by pacing alike (a day of a
     * zone with daylight saving lasts 23 or 25 hours).
     */
    public Day dayAt(long epochMillis) {
        return dayAt(timeZone, epochMillis);
    }

    /** As {@link #dayAt(long)} for a campaign without a budget (its day is the UTC day) or any zone. */
    public static Day dayAt(ZoneId zone, long epochMillis) {
        java.time.LocalDate date = java.time.LocalDate.ofInstant(java.time.Instant.ofEpochMilli(epochMillis), zone);
        return new Day(date, date.atStartOfDay(zone).toInstant().toEpochMilli(),
                date.plusDays(1).atStartOfDay(zone).toInstant().toEpochMilli());
    }
}
