package io.adreport.schema.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** UtcDay against java.time's own UTC calendar, including times before 1970 and day edges. */
class UtcDayTest {

    @Test
    void every_way_to_a_day_agrees_with_java_time() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            long millis = rnd.nextLong(-5_000_000_000_000L, 5_000_000_000_000L);
            if (i % 10 == 0) { // day edges: the last and first millisecond of a day
                millis = Math.floorDiv(millis, 86_400_000L) * 86_400_000L - (i % 20 == 0 ? 1 : 0);
            }
            Instant t = Instant.ofEpochMilli(millis);
            LocalDate oracle = t.atZone(ZoneOffset.UTC).toLocalDate();
            assertEquals(oracle, UtcDay.of(t).date(), t.toString());
            assertEquals(oracle.toEpochDay(), UtcDay.ofEpochMilli(millis).epochDay(), t.toString());
            assertEquals(oracle.toEpochDay(), UtcDay.epochDayOf(t), t.toString());
            assertEquals(oracle.toEpochDay(), UtcDay.epochDayOfBucketMinute(Math.floorDiv(millis, 60_000L)), t.toString());
            UtcDay d = UtcDay.of(oracle);
            assertEquals(oracle.atStartOfDay(ZoneOffset.UTC).toInstant(), d.start());
            assertEquals(oracle.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant(), d.end());
            assertTrue(!t.isBefore(d.start()) && t.isBefore(d.end()));
            assertEquals(d.start().getEpochSecond() / 60, d.firstMinute());
            assertEquals(oracle.toString(), d.toString());
            assertEquals(d, UtcDay.parse(d.toString()));
        }
    }

    @Test
    void a_bad_date_is_refused_naming_the_text_and_the_rule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UtcDay.parse("2026-13-01"));
        assertTrue(e.getMessage().contains("'2026-13-01'") && e.getMessage().contains("YYYY-MM-DD"), e.getMessage());
    }
}
