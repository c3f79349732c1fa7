package io.adreport.schema.spend;

import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The one layout of live campaign spend: table {@link TableLayout#spendTable()}, family
 * {@link TableLayout#SPEND_FAMILY} {@code s}. Frozen with the table's {@code _v1}.
 *
 * <p><b>Row</b>: {@code UTF-8(advertiser) 0x00 UTF-8(campaign) 0x00 UTF-8(shard)}, one row per
 * campaign per aggregator instance ({@code shard} = its {@code aggregator.id}). Spend of one hot
 * campaign is spread over as many rows as there are aggregators, each written by one process
 * only, and a reader gets a campaign's total with one short prefix scan
 * ({@link #prefix}: {@code advertiser 0x00 campaign 0x00}). Ids never contain {@code 0x00}
 * (control characters are refused), so the prefix of one campaign is never a prefix of another's.
 * Example: {@code adv1/c1} on shard {@code agg-a} is {@code 61 64 76 31 00 63 31 00 61 67 67 2d 61}.
 *
 * <p><b>Cells</b> (8-byte big-endian longs):
 * <ul>
 *   <li>{@code l} — lifetime spend, micros (Increment);</li>
 *   <li>{@code d} + {@code yyyyMMdd} — spend of one UTC day (Increment), e.g. {@code d20261201};</li>
 *   <li>{@code q} + {@code yyyyMMddHHmm} — spend of one UTC quarter hour, the minute its start
 *       (Increment), e.g. {@code q202612011015}: the same 15-minute buckets as the counter tables,
 *       so any advertiser day (every zone offset is a multiple of 15 minutes) is a whole number
 *       of quarters, and the burn curve of a day comes from the same cells;</li>
 *   <li>{@code b} — this shard's unflushed bound: the most spend it added to this campaign in one
 *       flush interval during the last minute (Put). A reader adds the bounds of all shards to
 *       what is flushed to know the most that may still be in memory;</li>
 *   <li>{@code f} — epoch millis of this shard's last flush that touched the row (Put);</li>
 *   <li>{@code n} — how many of this shard's spend Increments the row holds: a Put in the same
 *       row mutation as each Increment, which applies only while {@code n} still holds the count
 *       before it ({@link #flush}). A flush whose outcome is unknown (a timeout after the server
 *       applied it) is sent again unchanged, and applies at most once.</li>
 * </ul>
 * Every qualifier except the quarter cells sorts before {@code q}, so a reader takes a window of
 * quarters plus everything else with one column-range filter.
 *
 * <p>Why UTC quarters and days, not advertiser-zone days: the aggregator then needs no registry
 * (the zone of a budget may change, or a campaign be registered after its first event), and a
 * change of zone re-cuts days correctly from the same cells.
 */
public final class SpendRows {
    public static final byte[] FAMILY = TableLayout.SPEND_FAMILY;
    public static final byte[] LIFETIME = {'l'};
    public static final byte[] BOUND = {'b'};
    public static final byte[] FLUSHED_AT = {'f'};
    public static final byte[] SEQUENCE = {'n'};
    public static final byte DAY_PREFIX = 'd';
    public static final byte QUARTER_PREFIX = 'q';
    public static final long QUARTER_MILLIS = 15 * 60_000L;
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");
    private static final DateTimeFormatter QUARTER = DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);

    /** The event field whose sum over stored impressions is a campaign's spend (as the cube's {@code spendMicros}). */
    public static final String COST_FIELD = "costMicros";
    /** The counter metric that the nightly job makes exact and the budget reads for reconciled days. */
    public static final String SPEND_METRIC = "spendMicros";

    private SpendRows() {
    }

    /** True when the cube has campaigns (device profiles) and a cost field: only then is spend kept. */
    public static boolean supported(io.adreport.schema.cube.Cube cube) {
        return io.adreport.schema.cube.ProfileModel.supported(cube) && cube.numericField(COST_FIELD).isPresent()
                && cube.metric(SPEND_METRIC).isPresent();
    }

    public static byte[] row(String advertiser, String campaign, String shard) {
        return (advertiser + "\0" + campaign + "\0" + shard).getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] prefix(String advertiser, String campaign) {
        return (advertiser + "\0" + campaign + "\0").getBytes(StandardCharsets.UTF_8);
    }

    /** The shard id of a row of {@code advertiser/campaign}. */
    public static String shard(byte[] row, String advertiser, String campaign) {
        int n = prefix(advertiser, campaign).length;
        return new String(row, n, row.length - n, StandardCharsets.UTF_8);
    }

    public static byte[] dayQualifier(LocalDate utcDay) {
        return ("d" + DAY.format(utcDay)).getBytes(StandardCharsets.US_ASCII);
    }

    /** Start (epoch millis) of the UTC quarter hour containing {@code millis}. */
    public static long quarterStart(long millis) {
        return Math.floorDiv(millis, QUARTER_MILLIS) * QUARTER_MILLIS;
    }

    public static byte[] quarterQualifier(long quarterStartMillis) {
        return ("q" + QUARTER.format(Instant.ofEpochMilli(quarterStartMillis))).getBytes(StandardCharsets.US_ASCII);
    }

    /** The UTC day of a {@code d} qualifier. */
    public static LocalDate parseDay(byte[] q) {
        return LocalDate.parse(new String(q, 1, q.length - 1, StandardCharsets.US_ASCII), DAY);
    }

    /** The start (epoch millis) of the quarter of a {@code q} qualifier. */
    public static long parseQuarter(byte[] q) {
        return Instant.from(QUARTER.parse(new String(q, 1, q.length - 1, StandardCharsets.US_ASCII))).toEpochMilli();
    }

    /**
     * The Increment of one shard's flush for one campaign: {@code micros by quarter start} added to
     * their quarters, their UTC days and the lifetime cell, in one row operation.
     */
    public static Increment increment(byte[] row, Map<Long, Long> microsByQuarter, Durability durability) {
        Increment inc = new Increment(row);
        inc.setDurability(durability);
        inc.setReturnResults(false);
        long total = 0;
        java.util.Map<LocalDate, Long> days = new java.util.TreeMap<>();
        for (Map.Entry<Long, Long> e : microsByQuarter.entrySet()) {
            inc.addColumn(FAMILY, quarterQualifier(e.getKey()), e.getValue());
            days.merge(UtcDay.dateOf(Instant.ofEpochMilli(e.getKey())), e.getValue(), Long::sum);
            total += e.getValue();
        }
        days.forEach((d, v) -> inc.addColumn(FAMILY, dayQualifier(d), v));
        inc.addColumn(FAMILY, LIFETIME, total);
        return inc;
    }

    /**
     * One shard's flush for one campaign, applied at most once: the {@link #increment} and a Put
     * of {@link #SEQUENCE} {@code applied + 1} in one row mutation, on condition that the row's
     * {@code n} is {@code applied} (absent when {@code applied} is 0). Sent again unchanged after an
     * unknown outcome, it either applies now or finds {@code n} already moved past it.
     */
    public static CheckAndMutate flush(byte[] row, long applied, Map<Long, Long> microsByQuarter, Durability durability) {
        Put next = new Put(row).addColumn(FAMILY, SEQUENCE, Bytes.toBytes(applied + 1));
        next.setDurability(durability);
        RowMutations both = new RowMutations(row, 2);
        try {
            both.add(increment(row, microsByQuarter, durability));
            both.add(next);
        } catch (java.io.IOException impossible) { // thrown only for a mutation of another row
            throw new IllegalStateException(impossible);
        }
        CheckAndMutate.Builder check = CheckAndMutate.newBuilder(row);
        return applied == 0 ? check.ifNotExists(FAMILY, SEQUENCE).build(both)
                : check.ifEquals(FAMILY, SEQUENCE, Bytes.toBytes(applied)).build(both);
    }

    /** The Get of a row's {@link #SEQUENCE}. */
    public static Get sequenceGet(byte[] row) {
        return new Get(row).addColumn(FAMILY, SEQUENCE);
    }

    /** The {@link #SEQUENCE} a {@link #sequenceGet} found: 0 when the row has none. */
    public static long sequence(Result r) {
        byte[] v = r == null ? null : r.getValue(FAMILY, SEQUENCE);
        return v == null ? 0 : Bytes.toLong(v);
    }

    /** The Put of a shard's unflushed bound and flush time. */
    public static Put bound(byte[] row, long boundMicros, long flushedAtMillis) {
        return new Put(row).addColumn(FAMILY, BOUND, Bytes.toBytes(boundMicros)).addColumn(FAMILY, FLUSHED_AT, Bytes.toBytes(flushedAtMillis));
    }
}
