package io.adreport.schema.rowkey;

import static io.adreport.schema.rowkey.KeyBytes.readUint32;
import static io.adreport.schema.rowkey.KeyBytes.writeTerminated;
import static io.adreport.schema.rowkey.KeyBytes.putUint32;
import static io.adreport.schema.rowkey.KeyBytes.writeUint32;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.time.UtcDay;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The one and only place that builds and parses row keys. Nobody else concatenates key bytes.
 * Both layouts below are <b>frozen</b> (table version 1): changing a byte means a new table
 * version, never an edit in place.
 *
 * <h2>Counter tables ({@code <ns>:r_<rollup>_v1})</h2>
 * <pre>
 * offset size  field
 * 0      1     salt          CRC32C(rollup ‖ 0x00 ‖ v1 ‖ 0x00 ‖ … ‖ vn ‖ 0x00) mod saltBuckets
 * 1      1     granularity   1 = 15m, 2 = hour, 3 = day (see Granularity.code)
 * 2      4     bucket start  epoch minutes UTC, unsigned big-endian
 * 6      var   values        per rollup dimension, in rollup order (tenant first):
 *                            UTF-8 bytes then a 0x00 terminator
 * </pre>
 * The salt hashes the series (rollup and dimension values), never the time, so one series
 * always lives in one bucket and a point lookup computes its salt; a scan of a time range fans
 * out over all buckets. Values never contain 0x00 (control characters are rejected at ingest),
 * and 0x00 sorts below every other byte, so inside one salt bucket byte order equals the order
 * of (granularity, time, values...) — a prefix of (salt, granularity, time, tenant) selects one
 * tenant's rows of one bucket. CRC32C (Castagnoli, RFC 3720, {@link CRC32C}) is the named,
 * stable hash; it is never {@code String.hashCode} or {@code Arrays.hashCode}.
 *
 * <p>Worked example, 16 buckets: rollup {@code campaign}, advertiser {@code adv1}, campaign
 * {@code c7}, hour bucket 2026-11-29T10:00Z (epoch minute 29,932,440 = 0x01C8BB98):
 * CRC32C("campaign\0adv1\0c7\0") = 0x14A3C2A0, mod 16 = 0, so the key is
 * <pre>
 * 00 02 01 C8 BB 98 61 64 76 31 00 63 37 00
 * |  |  '-- time --' a  d  v  1  \0 c  7  \0
 * |  '-- hour
 * '-- salt 0
 * </pre>
 * (The test {@code RowKeyCodecTest.worked_example_in_javadoc_is_true} checks these bytes.)
 *
 * <h2>Raw events table ({@code <ns>:events_v1})</h2>
 * <pre>
 * offset size  field
 * 0      1     salt       CRC32C(type ‖ 0x00 ‖ id) mod rawSaltBuckets
 * 1      4     day        epoch day (UTC) of the event time, unsigned big-endian
 * 5      var   type       UTF-8, then 0x00 ("" for single-type cubes)
 * ..     var   id         UTF-8 (no terminator)
 * </pre>
 * A replayed beacon (same type, id and time) lands on the same row, which is what makes the
 * put-if-absent dedup work; one UTC day is read as one key range per salt bucket; the join
 * lookup of an impression by id computes the key for each candidate day.
 *
 * <p>Worked example, 16 buckets: type {@code click}, id {@code clk-0003}, event time
 * 2026-11-29T10:15:30.250Z (epoch day 20,786 = 0x00005132): CRC32C("click\0clk-0003") =
 * 0xFC8767B6, mod 16 = 6, so the key is
 * <pre>
 * 06 00 00 51 32 63 6C 69 63 6B 00 63 6C 6B 2D 30 30 30 33
 * |  '-- day --' c  l  i  c  k  \0 c  l  k  -  0  0  0  3
 * '-- salt 6
 * </pre>
 * ({@code RowKeyGoldenBytesTest} checks the bytes of both worked examples, encoded and
 * decoded, and of further fixed keys.)
 */
public final class RowKeyCodec {
    /** Offset of the first dimension value in a counter key. Frozen. */
    public static final int COUNTER_VALUES_OFFSET = 6;
    /** Offset of the type in a raw key. Frozen. */
    public static final int RAW_IDENTITY_OFFSET = 5;

    private final int saltBuckets;
    private final int rawSaltBuckets;

    public RowKeyCodec(Cube cube) {
        this(cube.saltBuckets(), cube.rawSaltBuckets());
    }

    public RowKeyCodec(int saltBuckets, int rawSaltBuckets) {
        if (saltBuckets < 1 || saltBuckets > 256 || rawSaltBuckets < 1 || rawSaltBuckets > 256) {
            throw new IllegalArgumentException("salt buckets must be 1..256");
        }
        this.saltBuckets = saltBuckets;
        this.rawSaltBuckets = rawSaltBuckets;
    }

    public int saltBuckets() {
        return saltBuckets;
    }

    public int rawSaltBuckets() {
        return rawSaltBuckets;
    }

    // --- counter keys ----------------------------------------------------------------------

    public int counterSalt(Rollup rollup, List<String> values) {
        return counterSalt(rollup, counterValues(rollup, values));
    }

    public byte[] counterKey(Rollup rollup, Granularity g, long bucketMinute, List<String> values) {
        byte[] encoded = counterValues(rollup, values);
        return counterKey(g, bucketMinute, encoded, counterSalt(rollup, encoded));
    }

    /**
     * The part of a counter key after {@link #COUNTER_VALUES_OFFSET}: each value as UTF-8 and a
     * 0x00 terminator (values holding 0x00 are refused). It does not depend on the granularity or
     * the bucket, so an event's rows of one rollup share it (and its {@link #counterSalt(Rollup, byte[]) salt}).
     */
    public byte[] counterValues(Rollup rollup, List<String> values) {
        if (values.size() != rollup.dimensions().size()) {
            throw new IllegalArgumentException("rollup " + rollup.name() + " needs " + rollup.dimensions().size()
                    + " values, got " + values.size());
        }
        return KeyBytes.terminated(values);
    }

    /**
     * The salt of a rollup row: CRC32C over the rollup name, 0x00, then the values as
     * {@link #counterValues} encodes them (each value and its 0x00), modulo the salt buckets.
     */
    public int counterSalt(Rollup rollup, byte[] encodedValues) {
        return counterSalt(rollupPrefix(rollup), encodedValues, 0, encodedValues.length, new CRC32C());
    }

    /**
     * {@link #counterSalt(Rollup, byte[])} of values encoded in {@code values[off, off + len)},
     * with the rollup's name and its 0x00 given as {@code prefix} ({@link #rollupPrefix}) and a
     * caller's {@code crc} (reset here): the allocation-free form for the counting paths.
     */
    public int counterSalt(byte[] prefix, byte[] values, int off, int len, CRC32C crc) {
        crc.reset();
        crc.update(prefix, 0, prefix.length);
        crc.update(values, off, len);
        return (int) (crc.getValue() % saltBuckets);
    }

    /** The rollup's name as UTF-8 and a 0x00: what the salt hashes before the values. */
    public static byte[] rollupPrefix(Rollup rollup) {
        byte[] name = rollup.name().getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(name, name.length + 1);
    }

    /** The bucket's start in epoch minutes, read from a counter key (what {@link #parseCounterKey} reads, alone). */
    public static long counterBucketMinute(byte[] counterKey) {
        if (counterKey.length < COUNTER_VALUES_OFFSET) {
            throw new IllegalArgumentException("counter key too short: " + counterKey.length + " bytes");
        }
        return readUint32(counterKey, 2);
    }

    /**
     * The counter key of one granularity and bucket of a rollup row whose values {@link #counterValues}
     * encoded and whose salt {@link #counterSalt(Rollup, byte[])} computed from them.
     */
    public byte[] counterKey(Granularity g, long bucketMinute, byte[] encodedValues, int salt) {
        byte[] key = new byte[COUNTER_VALUES_OFFSET + encodedValues.length];
        counterKeyHead(key, g, bucketMinute, salt);
        System.arraycopy(encodedValues, 0, key, COUNTER_VALUES_OFFSET, encodedValues.length);
        return key;
    }

    /**
     * Writes the first {@link #COUNTER_VALUES_OFFSET} bytes of a counter key (salt, granularity
     * code, bucket minute) into {@code key}, whose values follow at that offset: the in-place form
     * of {@link #counterKey(Granularity, long, byte[], int)} for a key buffer reused per row.
     */
    public void counterKeyHead(byte[] key, Granularity g, long bucketMinute, int salt) {
        if (bucketMinute % g.minutes() != 0) {
            throw new IllegalArgumentException("bucket minute " + bucketMinute + " is not aligned to " + g.label());
        }
        key[0] = (byte) salt;
        key[1] = (byte) g.code();
        putUint32(key, 2, bucketMinute);
    }

    public CounterKey parseCounterKey(byte[] row) {
        if (row.length < COUNTER_VALUES_OFFSET) {
            throw new IllegalArgumentException("counter key too short: " + row.length + " bytes");
        }
        int salt = row[0] & 0xFF;
        Granularity g = Granularity.fromCode(row[1] & 0xFF);
        long minute = readUint32(row, 2);
        List<String> values = new ArrayList<>();
        int start = COUNTER_VALUES_OFFSET;
        for (int i = start; i < row.length; i++) {
            if (row[i] == 0) {
                values.add(new String(row, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (start != row.length) {
            throw new IllegalArgumentException("counter key has an unterminated value");
        }
        return new CounterKey(salt, g, minute, values);
    }

    /** Rows of one salt bucket and granularity with bucket start in [fromMinute, toMinute). */
    public KeyRange counterTimeRange(int salt, Granularity g, long fromMinute, long toMinute) {
        return new KeyRange(counterPrefix(salt, g, fromMinute), counterPrefix(salt, g, toMinute));
    }

    /** Rows of one salt bucket, granularity and UTC day. */
    public KeyRange counterDayRange(int salt, Granularity g, LocalDate day) {
        UtcDay d = UtcDay.of(day);
        return counterTimeRange(salt, g, d.firstMinute(), d.plusDays(1).firstMinute());
    }

    /** Prefix selecting one tenant's rows in one bucket of one time slot. */
    public byte[] counterTenantPrefix(int salt, Granularity g, long bucketMinute, String tenant) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(salt);
        out.write(g.code());
        writeUint32(out, bucketMinute);
        writeTerminated(out, tenant);
        return out.toByteArray();
    }

    /**
     * Bytes of one terminated value, for a server-side comparator at {@link #COUNTER_VALUES_OFFSET}
     * (the tenant, being the first value, always starts there).
     */
    public static byte[] terminatedValue(String value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeTerminated(out, value);
        return out.toByteArray();
    }

    private static byte[] counterPrefix(int salt, Granularity g, long minute) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(6);
        out.write(salt);
        out.write(g.code());
        writeUint32(out, minute);
        return out.toByteArray();
    }

    // --- raw keys --------------------------------------------------------------------------

    public int rawSalt(String type, String id) {
        CRC32C crc = new CRC32C();
        crc.update((type == null ? "" : type).getBytes(StandardCharsets.UTF_8));
        crc.update(0);
        crc.update(id.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % rawSaltBuckets);
    }

    public byte[] rawKey(String type, String id, Instant ts) {
        return rawKey(type, id, UtcDay.epochDayOf(ts));
    }

    public byte[] rawKey(String type, String id, long epochDay) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8 + id.length());
        out.write(rawSalt(type, id));
        writeUint32(out, epochDay);
        writeTerminated(out, type == null ? "" : type);
        out.writeBytes(id.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    public RawKey parseRawKey(byte[] row) {
        if (row.length < RAW_IDENTITY_OFFSET + 1) {
            throw new IllegalArgumentException("raw key too short: " + row.length + " bytes");
        }
        int end = RAW_IDENTITY_OFFSET;
        while (end < row.length && row[end] != 0) {
            end++;
        }
        if (end == row.length) {
            throw new IllegalArgumentException("raw key has no type terminator");
        }
        String type = new String(row, RAW_IDENTITY_OFFSET, end - RAW_IDENTITY_OFFSET, StandardCharsets.UTF_8);
        String id = new String(row, end + 1, row.length - end - 1, StandardCharsets.UTF_8);
        return new RawKey(row[0] & 0xFF, readUint32(row, 1), type, id);
    }

    /** Raw rows of one salt bucket and one UTC day. */
    public KeyRange rawDayRange(int salt, LocalDate day) {
        return rawDayRange(salt, UtcDay.of(day));
    }

    /** Raw rows of one salt bucket and one UTC day. */
    public KeyRange rawDayRange(int salt, UtcDay day) {
        return new KeyRange(rawPrefix(salt, day.epochDay()), rawPrefix(salt, day.plusDays(1).epochDay()));
    }

    private static byte[] rawPrefix(int salt, long epochDay) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(5);
        out.write(salt);
        writeUint32(out, epochDay);
        return out.toByteArray();
    }

    // --- splits ----------------------------------------------------------------------------

    /** Split points for a table pre-split on {@code buckets} salt values: 0x01 .. buckets-1. */
    public static byte[][] splitKeys(int buckets) {
        byte[][] splits = new byte[buckets - 1][];
        for (int i = 1; i < buckets; i++) {
            splits[i - 1] = new byte[] {(byte) i};
        }
        return splits;
    }

    /** Lexicographic unsigned comparison, the order HBase sorts rows in. */
    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }
}
