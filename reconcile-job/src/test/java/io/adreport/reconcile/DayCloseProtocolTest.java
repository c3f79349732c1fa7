package io.adreport.reconcile;

import io.adreport.testkit.MutableClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The day-close handshake against a real meta table; aggregators are simulated by heartbeats. */
@ExtendWith(HBaseExtension.class)
class DayCloseProtocolTest {
    private static final LocalDate D = LocalDate.of(2026, 11, 20);
    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final Duration LIVENESS = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(500);
    private static DayStatusStore meta;
    private static HeartbeatStore heartbeats;
    private static MutableClock clock;

    @BeforeAll
    static void metaTable(MiniHBase hbase) throws Exception {
        TableLayout layout = new TableLayout(ReconcileJobTest.smallCube(), hbase.freshNamespace("close"));
        new SchemaApplier(layout).apply(hbase.connection().getAdmin(), false);
        clock = new MutableClock(D.plusDays(1).atTime(3, 0).toInstant(ZoneOffset.UTC));
        meta = new DayStatusStore(hbase.connection(), layout, clock);
        heartbeats = new HeartbeatStore(hbase.connection(), layout, clock);
    }

    @Test
    void waits_for_a_live_aggregator_to_acknowledge_after_the_closing_mark() throws Exception {
        clock.advance(Duration.ofHours(1)); // aggregators of other tests are no longer live
        heartbeats.heartbeat("agg-waited", Set.of());
        AtomicInteger polls = new AtomicInteger();
        DayCloseProtocol close = new DayCloseProtocol(meta, heartbeats, clock, d -> {
            clock.advance(d);
            if (polls.incrementAndGet() == 3) {
                assertEquals(DayStatus.CLOSING, meta.day(D).status());
                heartbeats.heartbeat("agg-waited", Set.of(D)); // stopped D, flushed, acknowledged
            } else {
                heartbeats.heartbeat("agg-waited", Set.of());
            }
        }, GRACE, LIVENESS, POLL);
        Instant start = clock.instant();

        DayCloseProtocol.Outcome outcome = close.close(D);

        assertEquals(3, polls.get(), "it waited until the acknowledgement, and no longer");
        assertTrue(outcome.acknowledged().contains("agg-waited"));
        assertFalse(outcome.unacknowledged().contains("agg-waited"));
        assertTrue(Duration.between(start, clock.instant()).compareTo(GRACE) < 0);
    }

    @Test
    void proceeds_after_the_grace_period_when_a_live_aggregator_stays_silent_and_ignores_stopped_ones() throws Exception {
        LocalDate day = D.minusDays(1);
        clock.advance(Duration.ofHours(1));
        heartbeats.heartbeat("agg-stopped", Set.of());
        clock.advance(Duration.ofMinutes(10)); // agg-stopped's heartbeat is now far too old
        heartbeats.heartbeat("agg-silent", Set.of());
        DayCloseProtocol close = new DayCloseProtocol(meta, heartbeats, clock, d -> {
            clock.advance(d);
            heartbeats.heartbeat("agg-silent", Set.of()); // alive, never acknowledges
        }, GRACE, LIVENESS, POLL);
        Instant start = clock.instant();

        DayCloseProtocol.Outcome outcome = close.close(day);

        assertTrue(Duration.between(start, clock.instant()).compareTo(GRACE) >= 0, "it waited the whole grace period");
        assertTrue(outcome.unacknowledged().contains("agg-silent"));
        assertTrue(outcome.notLive().contains("agg-stopped"));
        assertEquals(DayStatus.CLOSING, meta.day(day).status());
    }

    @Test
    void a_re_run_does_not_wait_for_an_aggregator_that_acknowledged_the_day_in_an_earlier_close() throws Exception {
        LocalDate day = D.minusDays(3);
        clock.advance(Duration.ofHours(1));
        meta.markClosing(day); // the earlier close
        heartbeats.heartbeat("agg-rerun", Set.of(day)); // acknowledged then: it stays stopped for the day
        clock.advance(Duration.ofSeconds(1));
        DayCloseProtocol close = new DayCloseProtocol(meta, heartbeats, clock, d -> {
            throw new AssertionError("the earlier acknowledgement is enough: no wait for the next heartbeat");
        }, GRACE, LIVENESS, POLL);

        DayCloseProtocol.Outcome outcome = close.close(day);

        assertEquals(List.of("agg-rerun"), outcome.acknowledged());
    }

    @Test
    void an_earlier_acknowledgement_of_an_aggregator_that_is_no_longer_live_is_not_counted() throws Exception {
        LocalDate day = D.minusDays(4);
        clock.advance(Duration.ofHours(1));
        meta.markClosing(day);
        heartbeats.heartbeat("agg-gone", Set.of(day));
        clock.advance(LIVENESS.plusSeconds(1));
        DayCloseProtocol close = new DayCloseProtocol(meta, heartbeats, clock, d -> {
            throw new AssertionError("nothing live to wait for");
        }, GRACE, LIVENESS, POLL);

        DayCloseProtocol.Outcome outcome = close.close(day);

        assertFalse(outcome.acknowledged().contains("agg-gone"));
        assertTrue(outcome.notLive().contains("agg-gone"));
    }

    @Test
    void closes_at_once_when_no_aggregator_is_alive() throws Exception {
        clock.advance(Duration.ofHours(1));
        DayCloseProtocol close = new DayCloseProtocol(meta, heartbeats, clock, d -> {
            throw new AssertionError("nothing to wait for");
        }, GRACE, LIVENESS, POLL);
        DayCloseProtocol.Outcome outcome = close.close(D.minusDays(2));
        assertEquals(List.of(), outcome.acknowledged());
        assertEquals(List.of(), outcome.unacknowledged());
    }
}
