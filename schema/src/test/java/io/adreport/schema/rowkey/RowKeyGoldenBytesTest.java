package io.adreport.schema.rowkey;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes for the frozen key layouts: fixed inputs, fixed expected hex, both directions.
 * The round-trip tests in {@link RowKeyCodecTest} would stay green if an edit changed the
 * encoder and the parser alike — and every row already stored would then be unreachable. These
 * would not.
 *
 * <p>The hex below was written from the layouts in {@link RowKeyCodec}'s Javadoc, with the
 * CRC32C values computed outside this code base (Castagnoli, reflected polynomial 0x82F63B78,
 * check value CRC32C("123456789") = 0xE3069283). Salts are chosen non-zero, so a salt that
 * silently became 0 would show. If one of these tests fails, the change broke stored data:
 * make it a new table version instead.
 */
class RowKeyGoldenBytesTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final Cube ADS = CubeLoader.defaultCube();
    /** The default cube's frozen bucket counts: 16 counter, 16 raw. */
    private static final RowKeyCodec CODEC = new RowKeyCodec(ADS);

    @Test
    void the_cube_still_has_the_bucket_counts_these_bytes_were_written_for() {
        assertEquals(16, CODEC.saltBuckets());
        assertEquals(16, CODEC.rawSaltBuckets());
    }

    /** The worked example of the Javadoc: CRC32C("campaign\0adv1\0c7\0") = 0x14A3C2A0, mod 16 = 0. */
    @Test
    void counter_key_of_the_javadoc_worked_example() {
        Rollup campaign = ADS.rollup("campaign").orElseThrow();
        String golden = "00" + "02" + "01c8bb98" + "6164763100" + "633700";
        long minute = 29_932_440L; // 2026-11-29T10:00Z = 0x01C8BB98
        assertEquals(Instant.parse("2026-11-29T10:00:00Z"), Instant.ofEpochSecond(minute * 60));

        assertEquals(golden, HEX.formatHex(CODEC.counterKey(campaign, Granularity.HOUR, minute, List.of("adv1", "c7"))));
        assertEquals(new CounterKey(0, Granularity.HOUR, minute, List.of("adv1", "c7")), CODEC.parseCounterKey(HEX.parseHex(golden)));
    }

    /**
     * Rollup {@code zone} (publisher, zone), 15-minute bucket 2026-11-29T10:45Z = epoch minute
     * 29,932,485 = 0x01C8BBC5, values "café-3" (UTF-8: 63 61 66 C3 A9 2D 33) and "pos1":
     * CRC32C("zone\0café-3\0pos1\0") = 0x6488E88F, mod 16 = 15.
     */
    @Test
    void counter_key_with_a_high_salt_and_a_non_ascii_value() {
        Rollup zone = ADS.rollup("zone").orElseThrow();
        List<String> values = List.of("caf\u00e9-3", "pos1");
        String golden = "0f" // salt 15
                + "01" // 15m
                + "01c8bbc5" // epoch minute 29,932,485
                + "636166c3a92d3300" // c a f é - 3 \0
                + "706f733100"; // p o s 1 \0
        long minute = 29_932_485L;
        assertEquals(Instant.parse("2026-11-29T10:45:00Z"), Instant.ofEpochSecond(minute * 60));

        assertEquals(15, CODEC.counterSalt(zone, values));
        assertEquals(golden, HEX.formatHex(CODEC.counterKey(zone, Granularity.MINUTES_15, minute, values)));
        assertEquals(new CounterKey(15, Granularity.MINUTES_15, minute, values), CODEC.parseCounterKey(HEX.parseHex(golden)));
    }

    /**
     * The network rollup has no dimensions: the key is salt, granularity and time only, and the
     * salt is CRC32C("network\0") = 0xB1997D6A, mod 16 = 10, for every network row.
     */
    @Test
    void counter_key_without_dimensions() {
        Rollup network = ADS.rollup("network").orElseThrow();
        String golden = "0a" + "03" + "01c8b940"; // salt 10, day, 2026-11-29T00:00Z = epoch minute 29,931,840
        long minute = 29_931_840L;
        assertEquals(Instant.parse("2026-11-29T00:00:00Z"), Instant.ofEpochSecond(minute * 60));

        assertEquals(golden, HEX.formatHex(CODEC.counterKey(network, Granularity.DAY, minute, List.of())));
        assertEquals(new CounterKey(10, Granularity.DAY, minute, List.of()), CODEC.parseCounterKey(HEX.parseHex(golden)));
    }

    /**
     * The worked example of the raw layout: type click, id clk-0003, event time
     * 2026-11-29T10:15:30.250Z (epoch day 20,786 = 0x00005132),
     * CRC32C("click\0clk-0003") = 0xFC8767B6, mod 16 = 6.
     */
    @Test
    void raw_key_of_the_javadoc_worked_example() {
        String golden = "06" // salt 6
                + "00005132" // epoch day 20,786
                + "636c69636b00" // c l i c k \0
                + "636c6b2d30303033"; // c l k - 0 0 0 3 (no terminator)
        Instant ts = Instant.parse("2026-11-29T10:15:30.250Z");

        assertEquals(6, CODEC.rawSalt("click", "clk-0003"));
        assertEquals(golden, HEX.formatHex(CODEC.rawKey("click", "clk-0003", ts)));
        assertEquals(new RawKey(6, 20_786, "click", "clk-0003"), CODEC.parseRawKey(HEX.parseHex(golden)));
    }

    /**
     * A single-type cube (8 raw buckets, as the example wikiticker cube) stores an empty type:
     * just its 0x00 terminator. Id w-1 at 2015-09-12T00:46:58.771Z (epoch day 16,690 = 0x00004132):
     * CRC32C("\0w-1") = 0x172B3A4A, mod 8 = 2.
     */
    @Test
    void raw_key_of_a_single_type_cube() {
        RowKeyCodec eight = new RowKeyCodec(8, 8);
        String golden = "02" + "00004132" + "00" + "772d31";

        assertEquals(golden, HEX.formatHex(eight.rawKey(null, "w-1", Instant.parse("2015-09-12T00:46:58.771Z"))));
        assertEquals(new RawKey(2, 16_690, "", "w-1"), eight.parseRawKey(HEX.parseHex(golden)));
    }
}
