package io.adreport.schema.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The one mapping between an {@link Event} and its raw-table row (family {@code e}). The row key
 * is {@link RowKeyCodec#rawKey}; the cells below are <b>frozen</b> (table version 1), like the key:
 * <ul>
 *   <li>{@code e:v} — the normalized event as compact JSON
 *       ({@code {"type","id","ts":millis,"d":{dims},"n":{numbers},"j":joinRef,"h":{hashed}}});</li>
 *   <li>{@code e:a} — arrival time, epoch millis (8-byte long): late-event accounting. An
 *       aggregator appends the token of the write attempt (8 more bytes, {@link #writerToken}), so
 *       that it can tell a row its own timed-out attempt stored from a row another writer stored;
 *       readers take the first 8 bytes, and a row of 8 bytes has no token;</li>
 *   <li>{@code e:dup} — how many replays of this event were acknowledged as duplicates (8-byte
 *       long, incremented by the aggregator, best effort): duplicate accounting in drift reports.</li>
 * </ul>
 * Byte by byte: family and qualifiers are the ASCII bytes {@code e} (0x65), {@code v} (0x76),
 * {@code a} (0x61), {@code dup} (0x64 0x75 0x70); the longs are 8 bytes big-endian
 * ({@link Bytes#toBytes(long)}). {@code e:v} is UTF-8 JSON without whitespace, members in exactly
 * this order: {@code type} (left out for single-type cubes), {@code id}, {@code ts} (an integer),
 * {@code d} (dimension values, strings), {@code n} (numeric fields, integers), {@code j} (left out
 * when the event joins nothing), {@code h} (hashed fields: lower-case hex HMAC-SHA256 of the raw
 * value, see {@link DeviceHasher}; while the secret rotates, {@code device@previous} also holds
 * the device's hash under the previous secret, see {@link DeviceHashes}); inside {@code d}, {@code n} and {@code h} the keys are in
 * ascending order, and {@code d}, {@code n} and {@code h} are written even when empty. Characters
 * outside ASCII are written as their UTF-8 bytes, not as escapes.
 *
 * <p>Worked example: a click {@code clk-0003} at 2026-11-29T10:15:30.250Z joining impression
 * {@code imp-0001} is stored at row {@code 06 00 00 51 32 63 6C 69 63 6B 00 63 6C 6B 2D 30 30 30 33}
 * (the worked example of {@link RowKeyCodec}) with {@code e:v} =
 * <pre>
 * {"type":"click","id":"clk-0003","ts":1795947330250,"d":{},"n":{},"j":"imp-0001","h":{}}
 * </pre>
 * and, arriving at 2026-11-29T10:15:31Z, {@code e:a} = {@code 00 00 01 A2 26 CD 7D B8}. An
 * impression with publisher {@code café-3} stores that value as {@code 63 61 66 C3 A9 2D 33}.
 * ({@code RawEventGoldenBytesTest} checks these bytes and more, encoded and decoded.)
 *
 * <p>Puts are written with {@link Durability#SYNC_WAL}: an acknowledged event is in the WAL. (With
 * several aggregator instances the aggregator sends its put-if-absent {@code ASYNC_WAL} and syncs
 * each region's WAL once per group commit before it answers.)
 */
public final class RawEventCodec {
    public static final byte[] VALUE = Bytes.toBytes("v");
    public static final byte[] ARRIVAL = Bytes.toBytes("a");
    public static final byte[] DUPLICATES = Bytes.toBytes("dup");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RowKeyCodec keys;

    public RawEventCodec(RowKeyCodec keys) {
        this.keys = keys;
    }

    public byte[] rowKey(Event e) {
        return keys.rawKey(e.type(), e.id(), e.ts());
    }

    public Put toPut(Event e, Instant arrival) {
        return toPut(e, rowKey(e), arrival);
    }

    /**
     * As {@link #toPut(Event, Instant)} with the row key the caller already computed with
     * {@link #rowKey} (a group commit keys every event once, for its in-flight claim).
     */
    public Put toPut(Event e, byte[] rowKey, Instant arrival) {
        return put(e, rowKey, Bytes.toBytes(arrival.toEpochMilli()));
    }

    /**
     * As {@link #toPut(Event, byte[], Instant)}, with the write attempt's {@code token} after the
     * arrival millis in {@code e:a} (16 bytes): {@link #writerToken} reads it back.
     */
    public Put toPut(Event e, byte[] rowKey, Instant arrival, long token) {
        byte[] a = new byte[2 * Bytes.SIZEOF_LONG];
        Bytes.putLong(a, 0, arrival.toEpochMilli());
        Bytes.putLong(a, Bytes.SIZEOF_LONG, token);
        return put(e, rowKey, a);
    }

    private static Put put(Event e, byte[] rowKey, byte[] arrivalCell) {
        Put put = new Put(rowKey);
        put.addColumn(TableLayout.RAW_FAMILY, VALUE, toJson(e));
        put.addColumn(TableLayout.RAW_FAMILY, ARRIVAL, arrivalCell);
        put.setDurability(Durability.SYNC_WAL);
        return put;
    }

    /** Each thread's buffer for {@link #toJson}, reset per event (a raw writer serializes every event it stores). */
    private static final ThreadLocal<ByteArrayBuilder> JSON_OUT = ThreadLocal.withInitial(() -> new ByteArrayBuilder(512));

    /**
     * The {@code e:v} bytes, written by a streaming generator straight from the record (no tree of
     * nodes per event: that tree was ~14% of a raw writer thread's samples under replay load) into
     * the thread's reused buffer (a new one per event, grown as it filled, was a tenth of a raw
     * writer's allocation); only the returned copy is new.
     */
    public static byte[] toJson(Event e) {
        ByteArrayBuilder out = JSON_OUT.get();
        out.reset();
        try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
            g.writeStartObject();
            if (e.type() != null) {
                g.writeStringField("type", e.type());
            }
            g.writeStringField("id", e.id());
            g.writeNumberField("ts", e.ts().toEpochMilli());
            g.writeObjectFieldStart("d");
            for (Map.Entry<String, String> d : e.dimensions().entrySet()) {
                g.writeStringField(d.getKey(), d.getValue());
            }
            g.writeEndObject();
            g.writeObjectFieldStart("n");
            for (Map.Entry<String, Long> n : e.numbers().entrySet()) {
                g.writeNumberField(n.getKey(), n.getValue());
            }
            g.writeEndObject();
            if (e.joinRef() != null) {
                g.writeStringField("j", e.joinRef());
            }
            g.writeObjectFieldStart("h");
            for (Map.Entry<String, String> h : e.hashed().entrySet()) {
                g.writeStringField(h.getKey(), h.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
            g.flush();
            return out.toByteArray();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The event in an {@code e:v} value, read by a streaming parser straight into the record's maps
     * (no tree of nodes per event: the tree was a seventh of a nightly map task's samples). Members
     * it does not know are skipped; a value that is not such an object, or lacks {@code id} or
     * {@code ts}, is an {@link IllegalArgumentException} naming what is wrong.
     */
    public static Event fromJson(byte[] value) {
        try (JsonParser p = JSON.getFactory().createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            String type = null;
            String id = null;
            String join = null;
            long ts = 0;
            boolean hasTs = false;
            Map<String, String> dims = new TreeMap<>();
            Map<String, Long> numbers = new TreeMap<>();
            Map<String, String> hashed = new TreeMap<>();
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                switch (name) {
                    case "type" -> type = v == JsonToken.VALUE_NULL ? null : p.getValueAsString();
                    case "id" -> id = v == JsonToken.VALUE_NULL ? null : p.getValueAsString();
                    case "ts" -> {
                        ts = p.getValueAsLong();
                        hasTs = v != JsonToken.VALUE_NULL;
                    }
                    case "j" -> join = v == JsonToken.VALUE_NULL ? null : p.getValueAsString();
                    case "d" -> readMembers(p, v, key -> dims.put(key, p.getValueAsString("")));
                    case "n" -> readMembers(p, v, key -> numbers.put(key, p.getValueAsLong()));
                    case "h" -> readMembers(p, v, key -> hashed.put(key, p.getValueAsString("")));
                    default -> p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw new IllegalArgumentException("the object does not end");
            }
            if (id == null || !hasTs) {
                throw new IllegalArgumentException(id == null ? "no id" : "no ts");
            }
            return new Event(type, id, Instant.ofEpochMilli(ts), dims, numbers, join, hashed);
        } catch (IOException | RuntimeException ex) {
            throw new IllegalArgumentException("malformed raw event value: " + ex.getMessage(), ex);
        }
    }

    /** Reads one member's value, the parser on it. */
    private interface Member {
        void read(String key) throws IOException;
    }

    /** Hands each member of object {@code start} to {@code member} (anything else is skipped). */
    private static void readMembers(JsonParser p, JsonToken start, Member member) throws IOException {
        if (start != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            p.nextToken();
            member.read(key);
            p.skipChildren();
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IllegalArgumentException("an object does not end");
        }
    }

    /** The event in a raw row, or an exception naming what is malformed. */
    public static Event fromResult(Result r) {
        byte[] v = r.getValue(TableLayout.RAW_FAMILY, VALUE);
        if (v == null) {
            throw new IllegalArgumentException("raw row has no e:v cell");
        }
        return fromJson(v);
    }

    /** Duplicates recorded on a raw row (0 when none). */
    public static long duplicates(Result r) {
        byte[] d = r.getValue(TableLayout.RAW_FAMILY, DUPLICATES);
        return d == null || d.length != 8 ? 0 : Bytes.toLong(d);
    }

    /** Arrival time of a raw row, or null when absent. */
    public static Instant arrival(Result r) {
        byte[] a = r.getValue(TableLayout.RAW_FAMILY, ARRIVAL);
        return a == null || (a.length != 8 && a.length != 16) ? null : Instant.ofEpochMilli(Bytes.toLong(a, 0));
    }

    /**
     * The token of the write attempt that stored a raw row ({@code e:a}'s bytes 8 to 16), or
     * {@link #NO_TOKEN} when the row is absent or was written without one.
     */
    public static long writerToken(Result r) {
        byte[] a = r.getValue(TableLayout.RAW_FAMILY, ARRIVAL);
        return a == null || a.length != 16 ? NO_TOKEN : Bytes.toLong(a, Bytes.SIZEOF_LONG);
    }

    /** {@link #writerToken} of a row written without a token; never a writer's token. */
    public static final long NO_TOKEN = 0L;
}
