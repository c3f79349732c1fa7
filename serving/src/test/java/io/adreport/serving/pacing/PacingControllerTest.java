package io.adreport.serving.pacing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The controller against a simulated campaign whose unthrottled demand is a known multiple of the
 * even curve's slope; spend is integrated here from the rate (no shared code with the controller).
 */
class PacingControllerTest {
    private static final long DAY = 86_400_000L;
    private static final long DAILY = 86_400_000_000L; // the even curve's slope: 1,000 micros per ms

    @Test
    void withoutObservedDemandEveryRequestPasses() {
        PacingController.State s = PacingController.next(PacingController.State.initial(), "d", 0, 1_000, DAILY, 0, DAY);
        assertEquals(1.0, s.rate());
    }

    @Test
    void demandFourTimesTheCurveSettlesNearAQuarterAndTracksTheCurve() {
        double demandPerMs = 4.0 * DAILY / DAY; // unthrottled: four times the budget over a day
        PacingController.State s = PacingController.State.initial();
        long spent = 0;
        long step = 1_000; // 1 s ticks
        long now = 0;
        for (int i = 0; i < 6 * 3600; i++) { // six hours
            s = PacingController.next(s, "d", spent, now, DAILY, DAILY * now / DAY, DAY);
            spent += Math.round(demandPerMs * s.rate() * step);
            now += step;
        }
        assertEquals(0.25, s.rate(), 0.02, "rate = curve slope / demand");
        long target = DAILY * now / DAY;
        assertTrue(Math.abs(spent - target) < 0.01 * target, "spend on the even curve after 6 h: spent " + spent + " target " + target);
    }

    @Test
    void aheadOfTheCurveThrottlesHarderAndBehindItOpensUp() {
        // demand seen so far 2,000 micros/ms; this second 2,000,000 micros at rate 0.5: 4,000 unthrottled; EWMA 2,600
        PacingController.State seen = new PacingController.State(0.5, 2_000, 1_000_000_000, 1_000, "d");
        long spent = 1_002_000_000;
        PacingController.State onCurve = PacingController.next(seen, "d", spent, 2_000, DAILY, spent, DAY);
        assertEquals(2_600, onCurve.demandPerMs(), 1e-6);
        assertEquals(1_000 / 2_600.0, onCurve.rate(), 1e-9, "on the curve: slope / demand");
        PacingController.State ahead = PacingController.next(seen, "d", spent, 2_000, DAILY, spent - 600_000_000, DAY);
        assertEquals((1_000 - 600_000_000 / 900_000.0) / 2_600.0, ahead.rate(), 1e-9, "ahead: give the excess back over 15 minutes");
        PacingController.State behind = PacingController.next(seen, "d", spent, 2_000, DAILY, spent + 60_000_000_000L, DAY);
        assertTrue(ahead.rate() < onCurve.rate(), ahead + " vs " + onCurve);
        assertEquals(1.0, behind.rate(), "far behind: everything passes");
        PacingController.State farAhead = PacingController.next(seen, "d", spent, 2_000, DAILY, 0, DAY);
        assertEquals(PacingController.MIN_RATE, farAhead.rate(), "far ahead: the floor, which keeps measuring demand");
    }

    @Test
    void aNewDayForgetsYesterdaysSpend() {
        PacingController.State late = new PacingController.State(0.5, 2.0, 80_000_000_000L, 1_000, "d1");
        PacingController.State s = PacingController.next(late, "d2", 0, 2_000, DAILY, 0, DAY);
        assertEquals(2.0, s.demandPerMs(), 1e-9, "no negative or huge spend delta across midnight");
    }

    @Test
    void theSpendOnItsWayCountsTowardsTheBudget() {
        assertTrue(PacingController.exhaustedAhead(900, 50, 0.1, 500, 1_000), "900 + 50 + 0.1 × 500 reaches the budget");
        assertFalse(PacingController.exhaustedAhead(900, 49, 0.1, 500, 1_000), "999 does not");
        assertTrue(PacingController.exhaustedAhead(1_000, 0, 0, 500, 1_000), "spent reaches the budget");
        assertFalse(PacingController.exhaustedAhead(999, 0, 0, 500, 1_000), "no lookahead without a rate");
        assertFalse(PacingController.exhaustedAhead(999, 0, -5, 500, 1_000), "a negative rate projects nothing");
    }

    @Test
    void theRecentRateIsTheGrowthOverTheLastSecondOfReads() {
        SpendRate r = new SpendRate();
        assertEquals(0.0, r.observe(0, 0));
        assertEquals(0.0, r.observe(250, 0), "nothing flushed yet");
        assertEquals(8.0, r.observe(500, 2_000), 1e-9, "2,000 micros over the last 250 ms outruns 2,000 over 500 ms");
        r.observe(750, 2_000);
        r.observe(1_000, 4_000);
        assertEquals(4.0, r.observe(1_250, 4_000), 1e-9, "window [250, 1250]: 4,000 micros over 1,000 ms (and 4.0 over its last half)");
        assertEquals(16.0, r.observe(1_500, 8_000), 1e-9, "a burst: 4,000 micros in the last 250 ms outrun 6,000 over the second");
        assertEquals(0.0, r.observe(1_300, 10), "a lower total (corrected) starts over");
    }

    /**
     * A burst campaign (1 s at 10,000 impressions/s, 1 s at 2,000, 1,000 micros each) whose spend
     * becomes visible only at spend flushes (every 250 ms) and whose exhaustion the pacing thread
     * decides every 250 ms: with the lookahead it stops within 0.5% of the budget on either side
     * of it; without, it overshoots by about rate × (flush + pacing interval). Spend is integrated
     * here per millisecond, independently of the service's arithmetic.
     */
    @Test
    void withTheLookaheadABurstStopsWithinHalfAPercentOfItsBudget() {
        long budget = 150_000_000L;
        for (long phase = 0; phase < 2_000; phase += 97) {
            long[] with = simulateBurst(budget, 500, phase);
            long[] without = simulateBurst(budget, 0, phase);
            double overWith = (with[0] - budget) / (double) budget;
            double overWithout = (without[0] - budget) / (double) budget;
            assertTrue(overWith <= 0.005, "phase " + phase + ": overspend with the lookahead " + overWith);
            assertTrue(overWith >= -0.04, "phase " + phase + ": stops at most rate × lookahead early " + overWith);
            assertTrue(overWithout > overWith, "phase " + phase + ": the lookahead stops earlier than without");
        }
    }

    /** @return {true spend at the stop, stop time in ms} */
    private static long[] simulateBurst(long budget, long lookahead, long phase) {
        SpendRate rate = new SpendRate();
        long spent = 0;
        long visible = 0;
        for (long t = 0; t < 120_000; t++) {
            long second = (t + phase) / 1_000;
            spent += (second % 2 == 0 ? 10 : 2) * 1_000; // impressions per ms × 1,000 micros
            if (t % 250 == 0) {
                visible = spent; // a spend flush
            }
            if ((t + 125) % 250 == 0) { // a pacing tick, between flushes
                double recent = rate.observe(t, visible);
                long unflushed = 0; // the flushed shards' own bound: what they hold is already in visible at the flush
                if (PacingController.exhaustedAhead(visible, unflushed, recent, lookahead, budget)) {
                    return new long[] {spent, t};
                }
            }
        }
        throw new AssertionError("never exhausted");
    }
}
