package io.adreport.schema.rowkey;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Property tests for the frozen key layouts: round trip, ordering, prefix selection. */
class RowKeyCodecTest {
    private static final Cube CUBE = CubeLoader.defaultCube();
    private static final RowKeyCodec CODEC = new RowKeyCodec(CUBE);
    private static final Rollup CAMPAIGN = CUBE.rollup("campaign").orElseThrow();
    private static final String[] ALPHABET = {"a", "b", "z", "A", "0", "é", "日本", "-", " ", "~", "\u00ff", "😀"};

    @Test
    void worked_example_in_javadoc_is_true() {
        long minute = Instant.parse("2026-11-29T10:00:00Z").getEpochSecond() / 60;
        byte[] key = CODEC.counterKey(CAMPAIGN, Granularity.HOUR, minute, List.of("adv1", "c7"));
        assertEquals("000201c8bb986164763100633700", HexFormat.of().formatHex(key));
    }

    @Test
    void counter_key_round_trips_for_random_values() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < 5_000; i++) {
            Rollup r = CUBE.rollups().get(rnd.nextInt(CUBE.rollups().size()));
            Granularity g = Granularity.values()[rnd.nextInt(3)];
            long minute = g.bucketMinute(Instant.ofEpochSecond(rnd.nextLong(0, 4_000_000_000L)));
            List<String> values = randomValues(rnd, r.dimensions().size());
            byte[] key = CODEC.counterKey(r, g, minute, values);
            CounterKey parsed = CODEC.parseCounterKey(key);
            assertEquals(new CounterKey(CODEC.counterSalt(r, values), g, minute, values), parsed);
            int valueBytes = values.stream().mapToInt(v -> v.getBytes(StandardCharsets.UTF_8).length + 1).sum();
            assertEquals(RowKeyCodec.COUNTER_VALUES_OFFSET + valueBytes, key.length, "length");
            assertTrue(parsed.salt() < CODEC.saltBuckets());
        }
    }

    @Test
    void salt_is_stable_per_series_and_ignores_time() {
        List<String> values = List.of("adv1", "c7");
        byte[] a = CODEC.counterKey(CAMPAIGN, Granularity.MINUTES_15, 0, values);
        byte[] b = CODEC.counterKey(CAMPAIGN, Granularity.DAY, 1440 * 20_000L, values);
        assertEquals(a[0], b[0]);
    }

    @Test
    void byte_order_equals_logical_order_inside_a_salt_bucket() {
        SplittableRandom rnd = new SplittableRandom(7);
        Rollup r = CUBE.rollup("creative").orElseThrow();
        RowKeyCodec oneBucket = new RowKeyCodec(1, 1);
        for (int i = 0; i < 20_000; i++) {
            Granularity g1 = Granularity.values()[rnd.nextInt(3)];
            Granularity g2 = rnd.nextBoolean() ? g1 : Granularity.values()[rnd.nextInt(3)];
            long m1 = g1.bucketMinute(Instant.ofEpochSecond(rnd.nextLong(0, 2_000_000_000L)));
            long m2 = rnd.nextBoolean() ? g2.bucketMinute(Instant.ofEpochSecond(m1 * 60)) : g2.bucketMinute(Instant.ofEpochSecond(rnd.nextLong(0, 2_000_000_000L)));
            List<String> v1 = randomValues(rnd, 3);
            List<String> v2 = rnd.nextBoolean() ? mutate(rnd, v1) : randomValues(rnd, 3);
            int logical = Integer.compare(g1.code(), g2.code());
            if (logical == 0) {
                logical = Long.compare(m1, m2);
            }
            for (int k = 0; logical == 0 && k < 3; k++) {
                logical = Arrays.compareUnsigned(v1.get(k).getBytes(StandardCharsets.UTF_8), v2.get(k).getBytes(StandardCharsets.UTF_8));
            }
            int bytes = RowKeyCodec.compare(oneBucket.counterKey(r, g1, m1, v1), oneBucket.counterKey(r, g2, m2, v2));
            assertEquals(Integer.signum(logical), Integer.signum(bytes), () -> v1 + " vs " + v2);
        }
    }

    @Test
    void day_range_selects_exactly_one_day_in_each_bucket() {
        SplittableRandom rnd = new SplittableRandom(3);
        LocalDate day = LocalDate.parse("2026-03-08");
        for (int i = 0; i < 5_000; i++) {
            Granularity g = Granularity.values()[rnd.nextInt(3)];
            Instant t = Instant.parse("2026-03-06T00:00:00Z").plusSeconds(rnd.nextLong(0, 5 * 86_400));
            List<String> values = randomValues(rnd, 2);
            byte[] key = CODEC.counterKey(CAMPAIGN, g, g.bucketMinute(t), values);
            int salt = key[0] & 0xFF;
            boolean inDay = LocalDate.ofInstant(g.bucketStart(t), java.time.ZoneOffset.UTC).equals(day);
            assertEquals(inDay, CODEC.counterDayRange(salt, g, day).contains(key), t::toString);
            int otherSalt = (salt + 1) % CODEC.saltBuckets();
            assertTrue(!CODEC.counterDayRange(otherSalt, g, day).contains(key));
        }
    }

    @Test
    void tenant_prefix_selects_exactly_one_tenant() {
        SplittableRandom rnd = new SplittableRandom(5);
        long minute = Granularity.HOUR.bucketMinute(Instant.parse("2026-11-29T10:00:00Z"));
        for (int i = 0; i < 5_000; i++) {
            List<String> values = randomValues(rnd, 2);
            byte[] key = CODEC.counterKey(CAMPAIGN, Granularity.HOUR, minute, values);
            String tenant = rnd.nextBoolean() ? values.get(0) : values.get(0) + "x"; // "x" extends: must not match
            byte[] prefix = CODEC.counterTenantPrefix(key[0] & 0xFF, Granularity.HOUR, minute, tenant);
            boolean starts = key.length >= prefix.length && Arrays.equals(Arrays.copyOf(key, prefix.length), prefix);
            assertEquals(values.get(0).equals(tenant), starts);
        }
    }

    @Test
    void raw_key_round_trips_and_day_range_selects_one_day() {
        SplittableRandom rnd = new SplittableRandom(11);
        LocalDate day = LocalDate.parse("2026-11-28");
        for (int i = 0; i < 5_000; i++) {
            String type = List.of("impression", "click", "conversion").get(rnd.nextInt(3));
            String id = randomValues(rnd, 1).get(0);
            Instant ts = Instant.parse("2026-11-27T00:00:00Z").plusSeconds(rnd.nextLong(0, 3 * 86_400));
            byte[] key = CODEC.rawKey(type, id, ts);
            RawKey parsed = CODEC.parseRawKey(key);
            assertEquals(new RawKey(CODEC.rawSalt(type, id), LocalDate.ofInstant(ts, java.time.ZoneOffset.UTC).toEpochDay(), type, id), parsed);
            assertArrayEquals(key, CODEC.rawKey(type, id, ts.plusMillis(0)), "a replay lands on the same row");
            boolean inDay = parsed.day().equals(day);
            assertEquals(inDay, CODEC.rawDayRange(parsed.salt(), day).contains(key));
        }
    }

    @Test
    void values_with_nul_are_refused() {
        assertThrows(IllegalArgumentException.class, () -> CODEC.counterKey(CAMPAIGN, Granularity.HOUR, 60, List.of("a\0b", "c")));
        assertThrows(IllegalArgumentException.class, () -> CODEC.counterKey(CAMPAIGN, Granularity.HOUR, 61, List.of("a", "c")));
    }

    private static List<String> randomValues(SplittableRandom rnd, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StringBuilder sb = new StringBuilder();
            int len = rnd.nextInt(0, 6);
            for (int k = 0; k < len; k++) {
                sb.append(ALPHABET[rnd.nextInt(ALPHABET.length)]);
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static List<String> mutate(SplittableRandom rnd, List<String> v) {
        List<String> out = new ArrayList<>(v);
        int k = rnd.nextInt(out.size());
        out.set(k, rnd.nextBoolean() ? out.get(k) + "a" : out.get(k).isEmpty() ? "b" : out.get(k).substring(1));
        return out;
    }
}
