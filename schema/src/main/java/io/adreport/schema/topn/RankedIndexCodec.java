package io.adreport.schema.topn;

import static io.adreport.schema.rowkey.KeyBytes.readUint32;
import static io.adreport.schema.rowkey.KeyBytes.writeTerminated;
import static io.adreport.schema.rowkey.KeyBytes.writeUint32;

import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.KeyRange;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The one owner of the ranked top-N index's row keys ({@code <ns>:topn_v1}, family {@code t};
 * see {@link io.adreport.schema.table.TableLayout#rankedIndexTable()}). For each reconciled UTC
 * day, rollup and stored metric the index lists every series whose day counter is positive, in
 * <b>descending</b> order of that counter, so the top-N of a day is a prefix scan and a range of
 * days is merged by sorted access to each day's list (see the report API's threshold merge). The
 * layout is <b>frozen</b> (index version 1).
 *
 * <h2>Entry rows</h2>
 * <pre>
 * offset size  field
 * 0      var   rollup       UTF-8, then 0x00
 * ..     1     kind         'E' (0x45): an entry of a day's list
 * ..     4     epoch day    UTC, unsigned big-endian
 * ..     4     generation   unsigned big-endian; only the generation named by the day's pointer row is read
 * ..     var   metric       UTF-8, then 0x00
 * ..     1     scope        0x00: every series; 0x01: one tenant's series, the tenant value follows
 * ..     var   tenant       (scope 0x01 only) UTF-8, then 0x00
 * ..     8     rank         ~(value XOR 0x8000000000000000), big-endian: byte order = value descending
 * ..     var   values       every rollup dimension value (tenant included), UTF-8 then 0x00 each
 * </pre>
 * Column {@code t:v} holds the value as an 8-byte long. Equal values sort by their dimension
 * values ascending (bytewise UTF-8, the order the report API breaks ties in).
 *
 * <h2>Pointer rows</h2>
 * <pre>
 * 0      var   rollup       UTF-8, then 0x00
 * ..     1     kind         'P' (0x50)
 * ..     4     epoch day    UTC, unsigned big-endian
 * </pre>
 * Column {@code t:g} holds the day's published generation as an 8-byte long. A writer writes a
 * whole new generation, then the pointer, then deletes generations older than the previous one,
 * so a reader that read the pointer sees a complete list (see {@code RankedIndexWriter}).
 * Column {@code t:h} (optional; added after version 1 was frozen, which readers ignore) holds a
 * generation's <i>content digest</i>: 8 bytes of generation, then 8 of digest, the sum modulo
 * 2<sup>64</sup> of {@link #entryDigest} over every entry row of that generation; it describes the
 * published list only while its generation equals {@code t:g} (a writer that publishes without a
 * digest leaves an older one behind). The sum is order-independent, so writers that produce a
 * day's entries in parallel add their parts; a writer that would produce the same digest keeps
 * the published generation instead of writing an identical one.
 *
 * <p>Worked example: rollup {@code campaign}, day 2026-11-01 (epoch day 20,758 = 0x00005116),
 * generation 1, metric {@code clicks}, tenant scope {@code adv1}, value 5, series (adv1, c7):
 * <pre>
 * 63 61 6D 70 61 69 67 6E 00 45 00 00 51 16 00 00 00 01 63 6C 69 63 6B 73 00
 * c  a  m  p  a  i  g  n  \0 E  '-- day --' '-- gen --' c  l  i  c  k  s  \0
 * 01 61 64 76 31 00 7F FF FF FF FF FF FF FA 61 64 76 31 00 63 37 00
 * |  a  d  v  1  \0 '------ rank of 5 ------' a  d  v  1  \0 c  7  \0
 * '-- tenant scope
 * </pre>
 * ({@code RankedIndexCodecTest.worked_example_in_javadoc_is_true} checks these bytes.)
 *
 * <h2>Month lists (kinds 'M', 'S', 'Q')</h2>
 * Once every day of a UTC month is reconciled, each rollup gets the same lists for the whole
 * month: entry rows exactly as above but with kind {@code 'M'} (0x4D) and, in the 4-byte day
 * field, the epoch day of the month's first day; the value is the series' month total. Beside
 * them, one <i>series row</i> per series with a positive month total, for random access:
 * <pre>
 * 0      var   rollup       UTF-8, then 0x00
 * ..     1     kind         'S' (0x53)
 * ..     4     epoch day    of the month's first day, unsigned big-endian
 * ..     4     generation   unsigned big-endian
 * ..     var   values       every rollup dimension value, UTF-8 then 0x00 each
 * </pre>
 * with one column per stored metric (qualifier = metric name, 8-byte long month total; absent
 * when 0). The month pointer row is {@code rollup 0x00 'Q' (0x51) epoch-day-of-first-day}; its
 * column {@code t:g} names the published generation and column {@code t:d} holds the generation
 * of every day list the month was built from, 8 bytes per day in day order
 * ({@link #encodeDayGenerations}). A reader uses a month list only when those equal the days'
 * current pointers and every day is reconciled, so a day reconciled again after its month was
 * written sends readers back to the day lists until the month is rewritten.
 */
public final class RankedIndexCodec {
    public static final byte ENTRY = 'E';
    public static final byte POINTER = 'P';
    public static final byte MONTH_ENTRY = 'M';
    public static final byte MONTH_SERIES = 'S';
    public static final byte MONTH_POINTER = 'Q';
    public static final byte SCOPE_ALL = 0;
    public static final byte SCOPE_TENANT = 1;
    /** Qualifier of an entry's value cell (family {@code t}). */
    public static final byte[] VALUE_QUALIFIER = {'v'};
    /** Qualifier of a pointer's published generation (day and month pointers). */
    public static final byte[] GENERATION_QUALIFIER = {'g'};
    /** Qualifier of a month pointer's day generations it was built from. */
    public static final byte[] DAY_GENERATIONS_QUALIFIER = {'d'};
    /** Qualifier of a day pointer's content digest of its published generation. */
    public static final byte[] DIGEST_QUALIFIER = {'h'};

    /** A decoded entry: the series' day value and its dimension values in rollup order. */
    public record Entry(long value, List<String> values) {
        public Entry {
            values = List.copyOf(values);
        }
    }

    private RankedIndexCodec() {
    }

    /** The key of one entry; {@code tenant} null for the every-series list. */
    public static byte[] entryKey(Rollup rollup, LocalDate day, long generation, String metric, String tenant, long value,
                                  List<String> values) {
        return entryKey(rollup, ENTRY, day.toEpochDay(), generation, metric, tenant, value, values);
    }

    /** The key of one entry of a month list; {@code tenant} null for the every-series list. */
    public static byte[] monthEntryKey(Rollup rollup, YearMonth month, long generation, String metric, String tenant, long value,
                                       List<String> values) {
        return entryKey(rollup, MONTH_ENTRY, month.atDay(1).toEpochDay(), generation, metric, tenant, value, values);
    }

    /** Every entry of one month list, best first. */
    public static KeyRange monthListRange(Rollup rollup, YearMonth month, long generation, String metric, String tenant) {
        byte[] prefix = listPrefixStream(rollup, MONTH_ENTRY, month.atDay(1).toEpochDay(), generation, metric, tenant).toByteArray();
        return new KeyRange(prefix, next(prefix));
    }

    /** The row holding one series' month totals (random access into a month). */
    public static byte[] monthSeriesKey(Rollup rollup, YearMonth month, long generation, List<String> values) {
        checkValues(rollup, values);
        ByteArrayOutputStream out = periodPrefix(rollup, MONTH_SERIES, month.atDay(1).toEpochDay(), generation);
        for (String v : values) {
            writeTerminated(out, v);
        }
        return out.toByteArray();
    }

    /** Entry rows (kind M) and series rows (kind S) of generations [from, to) of one month. */
    public static List<KeyRange> monthGenerationsRanges(Rollup rollup, YearMonth month, long fromGeneration, long toGeneration) {
        long day = month.atDay(1).toEpochDay();
        List<KeyRange> out = new ArrayList<>(2);
        for (byte kind : new byte[] {MONTH_ENTRY, MONTH_SERIES}) {
            out.add(new KeyRange(periodPrefix(rollup, kind, day, fromGeneration).toByteArray(),
                    periodPrefix(rollup, kind, day, toGeneration).toByteArray()));
        }
        return out;
    }

    public static byte[] monthPointerKey(Rollup rollup, YearMonth month) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeTerminated(out, rollup.name());
        out.write(MONTH_POINTER);
        writeUint32(out, month.atDay(1).toEpochDay());
        return out.toByteArray();
    }

    /** Column {@code t:d} of a month pointer: the generation of each day list, in day order. */
    public static byte[] encodeDayGenerations(long[] generations) {
        byte[] out = new byte[generations.length * 8];
        for (int d = 0; d < generations.length; d++) {
            for (int i = 0; i < 8; i++) {
                out[d * 8 + i] = (byte) (generations[d] >>> (8 * (7 - i)));
            }
        }
        return out;
    }

    public static long[] decodeDayGenerations(byte[] column) {
        if (column.length % 8 != 0) {
            throw new IllegalArgumentException("day generations: " + column.length + " bytes is not a multiple of 8");
        }
        long[] out = new long[column.length / 8];
        for (int d = 0; d < out.length; d++) {
            long g = 0;
            for (int i = 0; i < 8; i++) {
                g = (g << 8) | (column[d * 8 + i] & 0xFF);
            }
            out[d] = g;
        }
        return out;
    }

    private static void checkValues(Rollup rollup, List<String> values) {
        if (values.size() != rollup.dimensions().size()) {
            throw new IllegalArgumentException("rollup " + rollup.name() + " needs " + rollup.dimensions().size()
                    + " values, got " + values.size());
        }
    }

    private static byte[] entryKey(Rollup rollup, byte kind, long epochDay, long generation, String metric, String tenant, long value,
                                   List<String> values) {
        checkValues(rollup, values);
        ByteArrayOutputStream out = listPrefixStream(rollup, kind, epochDay, generation, metric, tenant);
        long rank = ~(value ^ Long.MIN_VALUE);
        for (int i = 7; i >= 0; i--) {
            out.write((int) (rank >>> (8 * i)));
        }
        for (String v : values) {
            writeTerminated(out, v);
        }
        return out.toByteArray();
    }

    /** Every entry of one list, best first. */
    public static KeyRange listRange(Rollup rollup, LocalDate day, long generation, String metric, String tenant) {
        byte[] prefix = listPrefixStream(rollup, ENTRY, day.toEpochDay(), generation, metric, tenant).toByteArray();
        return new KeyRange(prefix, next(prefix));
    }

    /** Parses an entry row of a list of {@code rollup} opened with {@link #listRange}. */
    public static Entry parseEntry(Rollup rollup, byte[] listPrefix, byte[] row) {
        int off = listPrefix.length;
        if (row.length < off + 8 || !Arrays.equals(row, 0, off, listPrefix, 0, off)) {
            throw new IllegalArgumentException("not an entry of this list");
        }
        long rank = 0;
        for (int i = 0; i < 8; i++) {
            rank = (rank << 8) | (row[off + i] & 0xFF);
        }
        long value = ~rank ^ Long.MIN_VALUE;
        List<String> values = new ArrayList<>(rollup.dimensions().size());
        int start = off + 8;
        for (int i = start; i < row.length; i++) {
            if (row[i] == 0) {
                values.add(new String(row, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (start != row.length || values.size() != rollup.dimensions().size()) {
            throw new IllegalArgumentException("entry has " + values.size() + " values, rollup " + rollup.name() + " has "
                    + rollup.dimensions().size());
        }
        return new Entry(value, values);
    }

    /** Entries of generations [fromGeneration, toGeneration) of one day (what a writer deletes). */
    public static KeyRange generationsRange(Rollup rollup, LocalDate day, long fromGeneration, long toGeneration) {
        return new KeyRange(periodPrefix(rollup, ENTRY, day.toEpochDay(), fromGeneration).toByteArray(),
                periodPrefix(rollup, ENTRY, day.toEpochDay(), toGeneration).toByteArray());
    }

    public static byte[] pointerKey(Rollup rollup, LocalDate day) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeTerminated(out, rollup.name());
        out.write(POINTER);
        writeUint32(out, day.toEpochDay());
        return out.toByteArray();
    }

    /** Pointer rows of the days in [from, toExclusive). */
    public static KeyRange pointerRange(Rollup rollup, LocalDate from, LocalDate toExclusive) {
        return new KeyRange(pointerKey(rollup, from), pointerKey(rollup, toExclusive));
    }

    /** The day of a pointer row. */
    public static LocalDate pointerDay(byte[] row) {
        if (row.length < 6 || row[row.length - 5] != POINTER) {
            throw new IllegalArgumentException("not a pointer row");
        }
        return LocalDate.ofEpochDay(readUint32(row, row.length - 4));
    }

    private static ByteArrayOutputStream listPrefixStream(Rollup rollup, byte kind, long epochDay, long generation, String metric,
                                                          String tenant) {
        Objects.requireNonNull(metric, "metric");
        if (tenant != null && !rollup.hasTenant()) {
            throw new IllegalArgumentException("rollup " + rollup.name() + " has no tenant");
        }
        ByteArrayOutputStream out = periodPrefix(rollup, kind, epochDay, generation);
        writeTerminated(out, metric);
        if (tenant == null) {
            out.write(SCOPE_ALL);
        } else {
            out.write(SCOPE_TENANT);
            writeTerminated(out, tenant);
        }
        return out;
    }

    private static ByteArrayOutputStream periodPrefix(Rollup rollup, byte kind, long epochDay, long generation) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        writeTerminated(out, rollup.name());
        out.write(kind);
        writeUint32(out, epochDay);
        writeUint32(out, generation);
        return out;
    }

    /** Column {@code t:h} of a day pointer: generation {@code generation}'s content digest. */
    public static byte[] encodeDigest(long generation, long digest) {
        return encodeDayGenerations(new long[] {generation, digest});
    }

    /**
     * The content digest column {@code h} records for {@code generation}, or null when there is
     * none (no column, or one recorded for another generation).
     */
    public static Long digestOf(long generation, byte[] h) {
        if (h == null || h.length != 16) {
            return null;
        }
        long[] v = decodeDayGenerations(h);
        return v[0] == generation && generation > 0 ? v[1] : null;
    }

    /**
     * One entry row's part of its generation's content digest: a 64-bit hash of the row key
     * without its four generation bytes, and of the value cell. The same entry in two generations
     * of a day gives the same part; a generation's digest is the sum of its entries' parts.
     */
    public static long entryDigest(byte[] row, byte[] value) {
        int generationAt = 0;
        while (row[generationAt] != 0) { // the rollup name is terminated; kind and epoch day follow
            generationAt++;
        }
        generationAt += 1 + 1 + 4;
        long h = 0xcbf29ce484222325L; // FNV-1a over the bytes, then a full 64-bit mix
        for (int i = 0; i < row.length; i++) {
            if (i < generationAt || i >= generationAt + 4) {
                h = (h ^ (row[i] & 0xFF)) * 0x100000001b3L;
            }
        }
        h = (h ^ 0xFF) * 0x100000001b3L; // separates the key from the value
        for (byte b : value) {
            h = (h ^ (b & 0xFF)) * 0x100000001b3L;
        }
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        return h ^ (h >>> 31);
    }

    /** The first key after every key that starts with {@code prefix}. */
    private static byte[] next(byte[] prefix) {
        byte[] stop = prefix.clone();
        for (int i = stop.length - 1; i >= 0; i--) {
            if (stop[i] != (byte) 0xFF) {
                stop[i]++;
                return Arrays.copyOf(stop, i + 1);
            }
        }
        return new byte[0];
    }
}
