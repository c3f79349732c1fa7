package io.adreport.schema.spend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HexFormat;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class SpendRowsTest {
    @Test
    void goldenRowAndQualifiers() {
        assertEquals("6164763100633100616767", HexFormat.of().formatHex(SpendRows.row("adv1", "c1", "agg")));
        assertArrayEquals("d20261201".getBytes(StandardCharsets.US_ASCII), SpendRows.dayQualifier(LocalDate.of(2026, 12, 1)));
        long q = Instant.parse("2026-12-01T10:15:00Z").toEpochMilli();
        assertArrayEquals("q202612011015".getBytes(StandardCharsets.US_ASCII), SpendRows.quarterQualifier(q));
        assertEquals(q, SpendRows.quarterStart(Instant.parse("2026-12-01T10:29:59.999Z").toEpochMilli()));
        assertEquals("agg", SpendRows.shard(SpendRows.row("adv1", "c1", "agg"), "adv1", "c1"));
    }

    @Test
    void quartersRoundTripAndSortInTimeOrderAfterEveryOtherCell() {
        Random r = new Random(7);
        long prev = Long.MIN_VALUE;
        byte[] prevQ = null;
        for (int i = 0; i < 2_000; i++) {
            long q = SpendRows.quarterStart(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli() + i * 900_000L + r.nextInt(900_000));
            assertEquals(q, SpendRows.parseQuarter(SpendRows.quarterQualifier(q)));
            if (prevQ != null) {
                assertTrue(q > prev && Bytes.compareTo(SpendRows.quarterQualifier(q), prevQ) > 0, "byte order = time order");
            }
            prev = q;
            prevQ = SpendRows.quarterQualifier(q);
            assertTrue(Bytes.compareTo(SpendRows.dayQualifier(LocalDate.of(2099, 12, 31)), prevQ) < 0);
        }
        for (byte[] other : new byte[][] {SpendRows.LIFETIME, SpendRows.BOUND, SpendRows.FLUSHED_AT}) {
            assertTrue(other[0] < SpendRows.QUARTER_PREFIX);
        }
        assertEquals(LocalDate.of(2026, 2, 28), SpendRows.parseDay(SpendRows.dayQualifier(LocalDate.of(2026, 2, 28))));
    }

    @Test
    void oneCampaignsPrefixIsNoOtherCampaignsPrefix() {
        byte[] p = SpendRows.prefix("adv", "c1");
        assertTrue(!Bytes.startsWith(SpendRows.row("adv", "c10", "agg"), p));
        assertTrue(Bytes.startsWith(SpendRows.row("adv", "c1", "agg"), p));
    }
}
