package io.adreport.schema.topn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.KeyRange;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RankedIndexCodecTest {
    private static final Cube ADS = CubeLoader.defaultCube();
    private static final Rollup CAMPAIGN = ADS.rollup("campaign").orElseThrow();
    private static final LocalDate DAY = LocalDate.parse("2026-11-01");

    @Test
    void worked_example_in_javadoc_is_true() {
        byte[] key = RankedIndexCodec.entryKey(CAMPAIGN, DAY, 1, "clicks", "adv1", 5, List.of("adv1", "c7"));
        assertEquals(("63616D706169676E0045000051160000000163 6C69636B7300"
                + "0161647631007FFFFFFFFFFFFFFA61647631006337 00").replace(" ", "").toLowerCase(),
                HexFormat.of().formatHex(key));
        KeyRange list = RankedIndexCodec.listRange(CAMPAIGN, DAY, 1, "clicks", "adv1");
        assertTrue(list.contains(key));
        assertEquals(new RankedIndexCodec.Entry(5, List.of("adv1", "c7")), RankedIndexCodec.parseEntry(CAMPAIGN, list.start(), key));
    }

    @Test
    void byte_order_is_value_descending_then_values_ascending_and_round_trips() {
        Random rnd = new Random(11);
        List<RankedIndexCodec.Entry> entries = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            long v = switch (rnd.nextInt(4)) {
                case 0 -> rnd.nextLong();
                case 1 -> rnd.nextInt(5);
                case 2 -> Long.MAX_VALUE - rnd.nextInt(3);
                default -> Long.MIN_VALUE + rnd.nextInt(3);
            };
            entries.add(new RankedIndexCodec.Entry(v, List.of("a" + rnd.nextInt(3), "c" + rnd.nextInt(50))));
        }
        byte[] prefix = RankedIndexCodec.listRange(CAMPAIGN, DAY, 7, "impressions", null).start();
        List<byte[]> keys = new ArrayList<>();
        for (RankedIndexCodec.Entry e : entries) {
            byte[] k = RankedIndexCodec.entryKey(CAMPAIGN, DAY, 7, "impressions", null, e.value(), e.values());
            assertEquals(e, RankedIndexCodec.parseEntry(CAMPAIGN, prefix, k));
            keys.add(k);
        }
        keys.sort(Arrays::compareUnsigned);
        for (int i = 1; i < keys.size(); i++) {
            RankedIndexCodec.Entry a = RankedIndexCodec.parseEntry(CAMPAIGN, prefix, keys.get(i - 1));
            RankedIndexCodec.Entry b = RankedIndexCodec.parseEntry(CAMPAIGN, prefix, keys.get(i));
            assertTrue(a.value() > b.value() || (a.value() == b.value() && (a.values().get(0) + "\0" + a.values().get(1))
                    .compareTo(b.values().get(0) + "\0" + b.values().get(1)) <= 0), a + " before " + b);
        }
    }

    @Test
    void lists_pointers_and_generations_do_not_overlap() {
        byte[] all = RankedIndexCodec.entryKey(CAMPAIGN, DAY, 2, "clicks", null, 3, List.of("adv1", "c1"));
        byte[] tenant = RankedIndexCodec.entryKey(CAMPAIGN, DAY, 2, "clicks", "adv1", 3, List.of("adv1", "c1"));
        assertTrue(!RankedIndexCodec.listRange(CAMPAIGN, DAY, 2, "clicks", null).contains(tenant));
        assertTrue(!RankedIndexCodec.listRange(CAMPAIGN, DAY, 2, "clicks", "adv").contains(tenant));
        assertTrue(!RankedIndexCodec.listRange(CAMPAIGN, DAY, 2, "click", null).contains(all));
        assertTrue(RankedIndexCodec.generationsRange(CAMPAIGN, DAY, 0, 3).contains(all));
        assertTrue(!RankedIndexCodec.generationsRange(CAMPAIGN, DAY, 0, 2).contains(all));
        assertTrue(!RankedIndexCodec.generationsRange(CAMPAIGN, DAY.plusDays(1), 0, 9).contains(all));
        byte[] pointer = RankedIndexCodec.pointerKey(CAMPAIGN, DAY);
        assertEquals(DAY, RankedIndexCodec.pointerDay(pointer));
        assertTrue(RankedIndexCodec.pointerRange(CAMPAIGN, DAY, DAY.plusDays(1)).contains(pointer));
        assertTrue(!RankedIndexCodec.pointerRange(CAMPAIGN, DAY.plusDays(1), DAY.plusDays(5)).contains(pointer));
        assertArrayEquals(pointer, RankedIndexCodec.pointerKey(CAMPAIGN, DAY));
        assertThrows(IllegalArgumentException.class,
                () -> RankedIndexCodec.entryKey(ADS.rollup("network").orElseThrow(), DAY, 1, "clicks", "x", 1, List.of()));
    }

    @Test
    void month_lists_series_rows_and_pointers_are_apart_from_the_day_lists() {
        YearMonth nov = YearMonth.of(2026, 11);
        byte[] entry = RankedIndexCodec.monthEntryKey(CAMPAIGN, nov, 3, "clicks", "adv1", 42, List.of("adv1", "c7"));
        KeyRange list = RankedIndexCodec.monthListRange(CAMPAIGN, nov, 3, "clicks", "adv1");
        assertTrue(list.contains(entry));
        assertEquals(new RankedIndexCodec.Entry(42, List.of("adv1", "c7")), RankedIndexCodec.parseEntry(CAMPAIGN, list.start(), entry));
        // the first day of the month: same day field, other kind, so neither reads the other
        assertTrue(!RankedIndexCodec.listRange(CAMPAIGN, DAY, 3, "clicks", "adv1").contains(entry));
        assertTrue(!RankedIndexCodec.generationsRange(CAMPAIGN, DAY, 0, 9).contains(entry));
        assertTrue(!RankedIndexCodec.monthListRange(CAMPAIGN, nov.plusMonths(1), 3, "clicks", "adv1").contains(entry));
        byte[] series = RankedIndexCodec.monthSeriesKey(CAMPAIGN, nov, 3, List.of("adv1", "c7"));
        List<KeyRange> gens = RankedIndexCodec.monthGenerationsRanges(CAMPAIGN, nov, 0, 4);
        assertTrue(gens.get(0).contains(entry) && gens.get(1).contains(series));
        assertTrue(RankedIndexCodec.monthGenerationsRanges(CAMPAIGN, nov, 0, 3).stream().noneMatch(r -> r.contains(entry) || r.contains(series)));
        byte[] pointer = RankedIndexCodec.monthPointerKey(CAMPAIGN, nov);
        assertTrue(!RankedIndexCodec.pointerRange(CAMPAIGN, DAY.minusDays(40), DAY.plusDays(40)).contains(pointer));
        assertEquals("63616d706169676e005100005116", HexFormat.of().formatHex(pointer));
        long[] g = {1, 2, 0x1_0000_0001L, 7};
        assertArrayEquals(g, RankedIndexCodec.decodeDayGenerations(RankedIndexCodec.encodeDayGenerations(g)));
        assertThrows(IllegalArgumentException.class, () -> RankedIndexCodec.decodeDayGenerations(new byte[5]));
    }

    @Test
    void an_entry_digest_ignores_the_generation_and_nothing_else() {
        List<String> series = List.of("adv1", "c7");
        byte[] five = org.apache.hadoop.hbase.util.Bytes.toBytes(5L);
        long d = RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY, 1, "clicks", "adv1", 5, series), five);
        assertEquals(d, RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY, 7, "clicks", "adv1", 5, series), five));
        java.util.Set<Long> others = new java.util.HashSet<>(List.of(
                RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY, 1, "clicks", null, 5, series), five),
                RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY, 1, "impressions", "adv1", 5, series), five),
                RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY, 1, "clicks", "adv1", 6, series), five),
                RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY, 1, "clicks", "adv1", 5, List.of("adv1", "c8")), five),
                RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY.plusDays(1), 1, "clicks", "adv1", 5, series), five),
                RankedIndexCodec.entryDigest(RankedIndexCodec.entryKey(CAMPAIGN, DAY, 1, "clicks", "adv1", 5, series),
                        org.apache.hadoop.hbase.util.Bytes.toBytes(6L))));
        assertEquals(6, others.size(), "each change gives another digest");
        assertTrue(!others.contains(d));
    }

    @Test
    void a_digest_describes_only_the_generation_it_was_recorded_for() {
        byte[] h = RankedIndexCodec.encodeDigest(7, -42);
        assertEquals(-42L, RankedIndexCodec.digestOf(7, h));
        assertEquals(null, RankedIndexCodec.digestOf(8, h), "a pointer moved on by a writer that records no digest");
        assertEquals(null, RankedIndexCodec.digestOf(7, null));
        assertEquals(null, RankedIndexCodec.digestOf(7, new byte[8]));
    }
}
