package io.adreport.serving.pacing;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
