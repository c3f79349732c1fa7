package io.adreport.aggregator.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.event.Event;
import io.adreport.schema.metrics.Metrics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The in-doubt record's rules, without HBase: whose token counts, when a row is checked, when it is given up. */
class InDoubtRowsTest {
    private static final long SECOND = 1_000_000_000L;

    private static RowId row(String id) {
        return new RowId(id.getBytes(StandardCharsets.UTF_8));
    }

    private static Event event(String id) {
        return new Event("impression", id, Instant.parse("2026-12-01T10:00:00Z"), Map.of(), Map.of(), null, Map.of());
    }

    @Test
    void a_row_stored_with_one_of_its_failed_attempts_tokens_is_counted_once() {
        Metrics metrics = new Metrics();
        InDoubtRows doubts = new InDoubtRows(metrics);
        doubts.failed(row("a"), event("a"), null, 11, 0);
        doubts.failed(row("a"), event("a"), null, 12, SECOND); // its retry failed too
        assertEquals(1, doubts.size());
        InDoubtRows.Doubt d = doubts.found(row("a"), 11); // the first attempt landed
        assertNotNull(d, "stored by an attempt of ours: count it");
        assertNull(doubts.found(row("a"), 11), "counted once: the row is settled");
        assertTrue(doubts.isEmpty());
    }

    @Test
    void a_row_stored_with_another_token_was_counted_by_its_writer() {
        InDoubtRows doubts = new InDoubtRows(new Metrics());
        doubts.failed(row("b"), event("b"), Map.of("campaign", "c1"), 21, 0);
        assertNull(doubts.found(row("b"), 99), "another instance's put won: not ours to count");
        assertTrue(doubts.isEmpty(), "and nothing is left to check");
        doubts.failed(row("c"), event("c"), null, 22, 0);
        doubts.storedAgain(row("c"));
        assertTrue(doubts.isEmpty(), "a later attempt of ours stored and counted it");
    }

    @Test
    void a_row_is_checked_after_the_settle_delay_and_an_absent_one_later_until_given_up() {
        Metrics metrics = new Metrics();
        InDoubtRows doubts = new InDoubtRows(metrics);
        doubts.failed(row("d"), event("d"), null, 31, 0);
        assertEquals(List.of(), doubts.due(SECOND, false, 10), "not due before the settle delay");
        List<InDoubtRows.Doubt> due = doubts.due(InDoubtRows.SETTLE.toNanos(), false, 10);
        assertEquals(1, due.size());
        assertEquals(1, doubts.due(0, true, 10).size(), "on shutdown every row is due");

        long t = InDoubtRows.SETTLE.toNanos();
        assertTrue(doubts.absent(due.get(0), t), "absent: checked again later");
        assertEquals(List.of(), doubts.due(t + 1, false, 10), "not at once");
        long giveUp = InDoubtRows.GIVE_UP.toNanos();
        int checks = 1;
        while (true) {
            List<InDoubtRows.Doubt> next = doubts.due(giveUp + 60 * SECOND, false, 10);
            assertEquals(1, next.size());
            long at = next.get(0).nextCheckNanos();
            assertTrue(at > t, "each check later than the one before");
            t = at;
            checks++;
            if (!doubts.absent(next.get(0), t)) {
                break;
            }
        }
        assertTrue(t >= giveUp, "given up only after " + InDoubtRows.GIVE_UP);
        assertTrue(checks < 20, "checks at growing intervals, not every poll: " + checks);
        assertTrue(doubts.isEmpty());
        assertTrue(metrics.scrape().contains("adreport_raw_in_doubt_settled_total{outcome=\"never_stored\"} 1"), metrics.scrape());
    }

    @Test
    void a_failed_counting_puts_the_row_back_and_the_record_is_bounded() {
        InDoubtRows doubts = new InDoubtRows(new Metrics());
        doubts.failed(row("e"), event("e"), null, 41, 0);
        InDoubtRows.Doubt d = doubts.found(row("e"), 41);
        doubts.restore(d);
        assertTrue(doubts.holds(row("e")), "its group failed before counting it: still in doubt");
        for (int i = 0; i < InDoubtRows.MAX_ROWS + 10; i++) {
            doubts.failed(row("f" + i), event("f" + i), null, 42, 0);
        }
        assertEquals(InDoubtRows.MAX_ROWS, doubts.size(), "at most MAX_ROWS rows held");
        assertFalse(doubts.holds(row("f" + (InDoubtRows.MAX_ROWS + 5))));
    }
}
