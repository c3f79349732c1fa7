package io.adreport.schema.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes for the raw-events row as {@link RawEventCodec} documents it: the row key, the
 * family and qualifiers, the {@code e:v} value, the {@code e:a} and {@code e:dup} longs, and the
 * keyed device hash inside {@code e:v}, for fixed inputs, encoded and decoded. A change made on
 * both sides of the codec keeps its round trips green but orphans every stored row; it fails
 * here.
 *
 * <p>The expected hex was written from the Javadoc layouts, with CRC32C and HMAC-SHA256 computed
 * outside this code base.
 */
class RawEventGoldenBytesTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] SECRET = "0123456789abcdef-test".getBytes(StandardCharsets.UTF_8);
    /** HMAC-SHA256(key = "0123456789abcdef-test", message = "device-42"), lower-case hex. */
    private static final String DEVICE_42 = "b1cad8e8cf8ebe8b1066a9287b9f60ae5e5331c509a2d5570b52109a32c5b2e9";
    private static final Instant TS = Instant.parse("2026-11-29T10:15:30.250Z"); // 1,795,947,330,250 ms
    private static final RawEventCodec CODEC = new RawEventCodec(new RowKeyCodec(CubeLoader.defaultCube()));

    private static final Event IMPRESSION = new Event("impression", "imp-0001", TS,
            Map.of("advertiser", "adv1", "campaign", "c7", "country", "DE", "publisher", "caf\u00e9-3", "zone", "pos1"),
            Map.of("costMicros", 1500L), null, Map.of("device", DEVICE_42));
    private static final String IMPRESSION_VALUE = ""
            + "7b2274797065223a22696d7072657373696f6e222c" // {"type":"impression",
            + "226964223a22696d702d30303031222c" // "id":"imp-0001",
            + "227473223a313739353934373333303235302c" // "ts":1795947330250,
            + "2264223a7b2261647665727469736572223a2261647631222c2263616d706169676e223a226337222c" // "d":{"advertiser":"adv1","campaign":"c7",
            + "22636f756e747279223a224445222c227075626c6973686572223a22636166c3a92d33222c227a6f6e65223a22706f7331227d2c" // "country":"DE","publisher":"café-3","zone":"pos1"},
            + "226e223a7b22636f73744d6963726f73223a313530307d2c" // "n":{"costMicros":1500},
            + "2268223a7b22646576696365223a226231636164386538636638656265386231303636613932383762396636306165" // "h":{"device":"b1cad8e8cf8ebe8b1066a9287b9f60ae
            + "3565353333316335303961326435353730623532313039613332633562326539227d7d"; // 5e5331c509a2d5570b52109a32c5b2e9"}}

    private static final Event CLICK = new Event("click", "clk-0003", TS, Map.of(), Map.of(), "imp-0001", Map.of());
    private static final String CLICK_VALUE = ""
            + "7b2274797065223a22636c69636b222c" // {"type":"click",
            + "226964223a22636c6b2d30303033222c" // "id":"clk-0003",
            + "227473223a313739353934373333303235302c" // "ts":1795947330250,
            + "2264223a7b7d2c226e223a7b7d2c" // "d":{},"n":{},
            + "226a223a22696d702d30303031222c" // "j":"imp-0001",
            + "2268223a7b7d7d"; // "h":{}}

    @Test
    void device_hash_is_hmac_sha256_of_the_raw_id_with_the_secret() {
        assertEquals(DEVICE_42, new DeviceHasher(SECRET).hash("device-42"));
    }

    /** The hash above is what ingest puts into the event, hence into {@code e:v}. */
    @Test
    void ingest_stores_that_hash_for_the_raw_device_id() throws Exception {
        EventParser parser = new EventParser(CubeLoader.defaultCube(), Clock.fixed(TS, ZoneOffset.UTC), Duration.ofDays(7),
                new DeviceHasher(SECRET));
        Event e = parser.parse(new ObjectMapper().readTree("""
                {"type":"impression","id":"imp-0001","ts":1795947330250,"advertiser":"adv1","campaign":"c7","country":"de",
                 "publisher":"caf\u00e9-3","zone":"pos1","device":"device-42","costMicros":1500}"""));
        assertEquals(IMPRESSION, e);
        assertEquals(IMPRESSION_VALUE, HEX.formatHex(RawEventCodec.toJson(e)));
    }

    @Test
    void impression_value_is_the_documented_json_bytes() {
        assertEquals(IMPRESSION_VALUE, HEX.formatHex(RawEventCodec.toJson(IMPRESSION)));
        assertEquals(IMPRESSION, RawEventCodec.fromJson(HEX.parseHex(IMPRESSION_VALUE)));
    }

    @Test
    void click_value_carries_its_join_reference_between_numbers_and_hashes() {
        assertEquals(CLICK_VALUE, HEX.formatHex(RawEventCodec.toJson(CLICK)));
        assertEquals(CLICK, RawEventCodec.fromJson(HEX.parseHex(CLICK_VALUE)));
    }

    /** Single-type cubes (no type field) leave "type" out; non-ASCII characters are raw UTF-8, not escaped. */
    @Test
    void single_type_value_has_no_type_member() {
        Event edit = new Event(null, "w-1", Instant.parse("2015-09-12T00:46:58.771Z"),
                Map.of("page", "T\u00ebst", "channel", "#en.wikipedia"), Map.of("deleted", 0L, "added", 36L), null, Map.of());
        String golden = ""
                + "7b226964223a22772d31222c" // {"id":"w-1",
                + "227473223a313434323031383831383737312c" // "ts":1442018818771,
                + "2264223a7b226368616e6e656c223a2223656e2e77696b697065646961222c2270616765223a2254c3ab7374227d2c" // "d":{"channel":"#en.wikipedia","page":"Tëst"},
                + "226e223a7b226164646564223a33362c2264656c65746564223a307d2c" // "n":{"added":36,"deleted":0},
                + "2268223a7b7d7d"; // "h":{}}

        assertEquals(golden, HEX.formatHex(RawEventCodec.toJson(edit)));
        assertEquals(edit, RawEventCodec.fromJson(HEX.parseHex(golden)));
    }

    /**
     * The whole Put: row = the raw key of the RowKeyCodec worked example's identity, family
     * {@code e} (0x65), {@code e:v} (0x76) = the JSON, {@code e:a} (0x61) = arrival millis as an
     * 8-byte big-endian long, written through the WAL synchronously.
     */
    @Test
    void put_holds_the_documented_row_family_qualifiers_and_values() {
        Instant arrival = Instant.parse("2026-11-29T10:15:31Z"); // 1,795,947,331,000 ms = 0x000001A226CD7DB8
        Put put = CODEC.toPut(CLICK, arrival);

        assertEquals("0600005132636c69636b00636c6b2d30303033", HEX.formatHex(put.getRow()));
        assertEquals(Durability.SYNC_WAL, put.getDurability());
        List<Cell> cells = put.getFamilyCellMap().get(HEX.parseHex("65"));
        assertEquals(2, cells.size());
        assertEquals(Map.of("76", CLICK_VALUE, "61", "000001a226cd7db8"), Map.of(
                HEX.formatHex(CellUtil.cloneQualifier(cells.get(0))), HEX.formatHex(CellUtil.cloneValue(cells.get(0))),
                HEX.formatHex(CellUtil.cloneQualifier(cells.get(1))), HEX.formatHex(CellUtil.cloneValue(cells.get(1)))));
    }

    /** Reading a stored row: e:v decodes, e:a is arrival millis, e:dup (0x647570) a count, all 8-byte big-endian. */
    @Test
    void stored_cells_decode_to_the_event_its_arrival_and_its_duplicates() {
        byte[] row = HEX.parseHex("0600005132636c69636b00636c6b2d30303033");
        byte[] family = HEX.parseHex("65");
        Result r = Result.create(new Cell[] {
                new KeyValue(row, family, HEX.parseHex("61"), HEX.parseHex("000001a226cd7db8")),
                new KeyValue(row, family, HEX.parseHex("647570"), HEX.parseHex("0000000000000003")),
                new KeyValue(row, family, HEX.parseHex("76"), HEX.parseHex(CLICK_VALUE))});

        assertEquals(CLICK, RawEventCodec.fromResult(r));
        assertEquals(Instant.parse("2026-11-29T10:15:31Z"), RawEventCodec.arrival(r));
        assertEquals(3, RawEventCodec.duplicates(r));
    }

    /**
     * An aggregator's Put: {@code e:a} is the arrival millis followed by the write attempt's token
     * (16 bytes, both big-endian longs); readers get the arrival from its first 8 bytes, and a row
     * of 8 bytes has no token.
     */
    @Test
    void an_aggregators_arrival_cell_carries_its_write_attempts_token() {
        Instant arrival = Instant.parse("2026-11-29T10:15:31Z");
        Put put = CODEC.toPut(CLICK, CODEC.rowKey(CLICK), arrival, 0x0102030405060708L);
        Cell a = put.get(HEX.parseHex("65"), HEX.parseHex("61")).get(0);
        assertEquals("000001a226cd7db80102030405060708", HEX.formatHex(CellUtil.cloneValue(a)));

        byte[] row = put.getRow();
        byte[] family = HEX.parseHex("65");
        Result withToken = Result.create(new Cell[] {new KeyValue(row, family, HEX.parseHex("61"), CellUtil.cloneValue(a))});
        assertEquals(arrival, RawEventCodec.arrival(withToken));
        assertEquals(0x0102030405060708L, RawEventCodec.writerToken(withToken));
        Result without = Result.create(new Cell[] {new KeyValue(row, family, HEX.parseHex("61"), HEX.parseHex("000001a226cd7db8"))});
        assertEquals(arrival, RawEventCodec.arrival(without));
        assertEquals(RawEventCodec.NO_TOKEN, RawEventCodec.writerToken(without));
        assertEquals(RawEventCodec.NO_TOKEN, RawEventCodec.writerToken(Result.EMPTY_RESULT));
    }
}
