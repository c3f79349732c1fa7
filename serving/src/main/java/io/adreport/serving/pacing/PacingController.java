package io.adreport.serving.pacing;

/**
 * The pass-through rate of one campaign with a daily budget: a proportional controller on the
 * even curve, pure (state in, state out).
 *
 * <p>Target: the even curve {@code target(t) = daily × (t − dayStart) / dayLength}, whose slope is
 * {@code daily / dayLength}. Each interval the controller asks for the spend rate
 * {@code wanted = slope − (spent − target) / HORIZON}: on the curve it spends at the curve's slope;
 * ahead of it by {@code e} it plans to give {@code e} back over {@link #HORIZON_MILLIS} (15
 * minutes); behind it, it plans to catch up over the same time. The rate is
 * {@code wanted / demand}, clamped to [{@link #MIN_RATE}, 1], where {@code demand} is the spend
 * rate the campaign would have unthrottled: the observed spend rate over the interval divided by
 * the rate that was in force, smoothed (EWMA, weight {@link #ALPHA}). Before any demand is seen
 * the rate is 1. A small floor rather than 0 keeps a trickle of traffic that measures demand.
 */
final class PacingController {
    static final long HORIZON_MILLIS = 15 * 60_000L;
    static final double MIN_RATE = 0.01;
    static final double ALPHA = 0.3;

    private PacingController() {
    }

    /**
     * @param rate          the rate published now
     * @param demandPerMs   the smoothed unthrottled spend rate (micros per ms), 0 when unknown
     * @param spentMicros   today's spend when it was observed
     * @param observedAt    when (epoch ms); 0 before the first observation
     * @param day           the advertiser day it belongs to (a new day resets the spend delta)
     */
    record State(double rate, double demandPerMs, long spentMicros, long observedAt, String day) {
        static State initial() {
            return new State(1.0, 0, 0, 0, "");
        }
    }

    /**
     * The next state after observing {@code spent} micros of today's spend at {@code now}.
     *
     * @param daily      the daily budget (micros)
     * @param target     where the even curve is now (micros)
     * @param dayMillis  the length of the advertiser's day
     */
    static State next(State s, String day, long spent, long now, long daily, long target, long dayMillis) {
        double demand = s.demandPerMs();
        if (s.observedAt() > 0 && day.equals(s.day()) && now > s.observedAt()) {
            double observed = Math.max(0, spent - s.spentMicros()) / (double) (now - s.observedAt());
            double unthrottled = observed / Math.max(s.rate(), MIN_RATE);
            demand = demand == 0 ? unthrottled : ALPHA * unthrottled + (1 - ALPHA) * demand;
        }
        double slope = daily / (double) dayMillis;
        double wanted = Math.max(0, slope - (spent - target) / (double) HORIZON_MILLIS);
        double rate = demand <= 0 ? 1.0 : Math.max(MIN_RATE, Math.min(1.0, wanted / demand));
        return new State(rate, demand, spent, now, day);
    }

    /**
     * Whether a budget is spent once the spend already on its way lands: {@code spent} plus the
     * shards' unflushed bound plus what the campaign spends, at its recent rate, before a decision
     * published now reaches every request ({@code lookaheadMillis}: the spend flush plus the pacing
     * interval). Stopping on this, rather than on spent + unflushed alone, is what keeps a burst
     * from overshooting by rate × (flush + pacing interval); the price is stopping up to that much
     * early when the burst ends just then.
     */
    static boolean exhaustedAhead(long spentMicros, long unflushedMicros, double recentPerMs, long lookaheadMillis, long budgetMicros) {
        double ahead = spentMicros + (double) unflushedMicros + Math.max(0, recentPerMs) * lookaheadMillis;
        return ahead >= budgetMicros;
    }
}
