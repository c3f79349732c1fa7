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
}
