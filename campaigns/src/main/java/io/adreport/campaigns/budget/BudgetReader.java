package io.adreport.campaigns.budget;

import io.adreport.schema.campaign.Budget;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.spend.SpendRows;
import io.adreport.schema.spend.SpendStore;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A campaign's spend against its budget: one prefix scan of its spend shard rows
 * ({@link SpendStore}) plus, for UTC days the nightly job has reconciled, the exact
 * {@code spendMicros} of the campaign rollup's counters.
 *
 * <p><b>Exact after reconcile</b> — the chosen design: the nightly job is not taught about spend
 * rows. Instead the reader takes each UTC day's spend from the source that is right for it: a
 * day whose status is {@code reconciled} is read from the counters (15-minute buckets for the part
 * of it inside the advertiser's day, the day bucket for lifetime), every other day from the live
 * spend rows. So today's and lifetime spend equal the billed numbers as soon as a day is
 * reconciled, whatever the live path lost (a crash before a spend flush) or counted twice (an
 * Increment retried after a timeout). Lifetime = the shards' lifetime cells, with each reconciled
 * day's live total replaced by its exact total. The days considered are those with a live day
 * cell plus the last {@link #RECENT_DAYS} UTC days (a day whose live spend was lost entirely has
 * no day cell; events are accepted only within the accept window, 7 days by default).
 * Exact values of reconciled days are cached by (campaign, day, reconciledAt), so a re-run of
 * the job invalidates them and the pacing service's frequent reads cost one scan.
 *
 * <p>"Today" is cut in the budget's zone; every zone offset is a multiple of 15 minutes, so the
 * advertiser's day is a whole number of the quarter cells (both of the spend rows and of the
 * counters).
 */
public final class BudgetReader {
    static final int RECENT_DAYS = 8;

    private final Connection connection;
    private final TableLayout layout;
    private final DayStatusStore meta;
    private final Clock clock;
    private final SpendStore spend;
    private final Rollup rollup;
    private final RowKeyCodec codec;
    private final byte[] spendQualifier;
    private final Map<String, Long> exactCache = new ConcurrentHashMap<>();

    public BudgetReader(Connection connection, TableLayout layout, DayStatusStore meta, Clock clock) {
        this.connection = connection;
        this.layout = layout;
        this.meta = meta;
        this.clock = clock;
        this.spend = new SpendStore(connection, layout);
        this.rollup = layout.cube().rollups().stream()
                .filter(r -> r.dimensions().equals(List.of(ProfileModel.ADVERTISER, ProfileModel.CAMPAIGN))).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("the cube has no (advertiser, campaign) rollup for exact spend"));
        this.codec = new RowKeyCodec(layout.cube());
        this.spendQualifier = Bytes.toBytes(SpendRows.SPEND_METRIC);
    }

    /** True when {@code layout}'s cube keeps spend and has the rollup this reader needs. */
    public static boolean supported(TableLayout layout) {
        return SpendRows.supported(layout.cube()) && layout.cube().rollups().stream()
                .anyMatch(r -> r.dimensions().equals(List.of(ProfileModel.ADVERTISER, ProfileModel.CAMPAIGN)));
    }

    /** The budget status of {@code c} now. */
    public BudgetStatus read(Campaign c) throws IOException {
        Budget b = c.budget();
        ZoneId zone = b == null ? ZoneOffset.UTC : b.timeZone();
        Instant now = clock.instant();
        Budget.Day budgetDay = Budget.dayAt(zone, now.toEpochMilli());
        long dayStart = budgetDay.startMillis();
        long dayEnd = budgetDay.endMillis();
        SpendStore.Snapshot s = spend.read(c.advertiser(), c.campaign(), dayStart, dayEnd);

        LocalDate today = UtcDay.dateOf(now);
        TreeSet<LocalDate> days = new TreeSet<>(s.days().keySet());
        for (int i = 0; i < RECENT_DAYS; i++) {
            days.add(today.minusDays(i));
        }
        LocalDate firstDayOfToday = UtcDay.dateOf(Instant.ofEpochMilli(dayStart));
        LocalDate lastDayOfToday = UtcDay.dateOf(Instant.ofEpochMilli(dayEnd - 1));
        days.add(firstDayOfToday);
        days.add(lastDayOfToday);
        Map<LocalDate, DayState> states = meta.days(days.first(), days.last());

        // Lifetime: live cells, each reconciled day's live total replaced by its exact total.
        long lifetime = s.lifetimeMicros();
        for (LocalDate d : days) {
            DayState st = states.get(d);
            if (reconciled(st)) {
                lifetime += exactDay(c, d, st) - s.days().getOrDefault(d, 0L);
            }
        }
        // Today by quarter hour, each quarter from the source right for its UTC day.
        Map<Long, Long> quarters = new TreeMap<>();
        for (long q = dayStart; q < dayEnd; q += SpendRows.QUARTER_MILLIS) {
            quarters.put(q, 0L);
        }
        quarters.putAll(restrict(s.quarters(), dayStart, dayEnd));
        for (LocalDate d = firstDayOfToday; !d.isAfter(lastDayOfToday); d = d.plusDays(1)) {
            DayState st = states.get(d);
            if (reconciled(st)) {
                long from = Math.max(dayStart, d.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
                long to = Math.min(dayEnd, d.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
                quarters.putAll(exactQuarters(c, from, to));
            }
        }
        long todaySpend = quarters.values().stream().mapToLong(Long::longValue).sum();
        long bound = s.boundMicros();

        Long remaining = null;
        boolean exhausted = false;
        if (b != null) {
            long r = Long.MAX_VALUE;
            if (b.hasDaily()) {
                r = Math.min(r, b.dailyMicros() - todaySpend);
                exhausted |= todaySpend + bound >= b.dailyMicros();
            }
            if (b.hasLifetime()) {
                r = Math.min(r, b.lifetimeMicros() - lifetime);
                exhausted |= lifetime + bound >= b.lifetimeMicros();
            }
            remaining = Math.max(0, r);
        }
        double fraction = Math.min(1.0, Math.max(0.0, (now.toEpochMilli() - dayStart) / (double) (dayEnd - dayStart)));
        Long target = b != null && b.hasDaily() ? Math.round(b.dailyMicros() * fraction) : null;
        List<BudgetStatus.BurnPoint> burn = new ArrayList<>();
        long cumulative = 0;
        for (Map.Entry<Long, Long> e : quarters.entrySet()) {
            if (e.getKey() >= now.toEpochMilli()) {
                break;
            }
            cumulative += e.getValue();
            long end = Math.min(e.getKey() + SpendRows.QUARTER_MILLIS, now.toEpochMilli());
            Long t = b != null && b.hasDaily() ? Math.round(b.dailyMicros() * (end - dayStart) / (double) (dayEnd - dayStart)) : null;
            burn.add(new BudgetStatus.BurnPoint(ZonedDateTime.ofInstant(Instant.ofEpochMilli(end), zone).toOffsetDateTime().toString(),
                    cumulative, t));
        }
        return new BudgetStatus(c.advertiser(), c.campaign(), budgetDay.date().toString(), zone.getId(),
                b != null && b.hasDaily() ? b.dailyMicros() : null, b != null && b.hasLifetime() ? b.lifetimeMicros() : null,
                todaySpend, lifetime, remaining, bound, exhausted,
                new BudgetStatus.Pacing(null, target, now.toString(), fraction), burn);
    }

    private static boolean reconciled(DayState st) {
        return st != null && st.status() == DayStatus.RECONCILED;
    }

    private static Map<Long, Long> restrict(Map<Long, Long> quarters, long from, long to) {
        Map<Long, Long> out = new TreeMap<>();
        quarters.forEach((q, v) -> {
            if (q >= from && q < to) {
                out.put(q, v);
            }
        });
        return out;
    }

    /** Exact spend of a reconciled UTC day from the rollup's day bucket (or its quarters). */
    private long exactDay(Campaign c, LocalDate d, DayState st) throws IOException {
        String key = c.key() + "\0" + d + "\0" + st.reconciledAt();
        Long cached = exactCache.get(key);
        if (cached != null) {
            return cached;
        }
        long start = d.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        long v;
        if (rollup.granularities().contains(Granularity.DAY)) {
            v = counters(c, Granularity.DAY, List.of(start)).values().stream().mapToLong(Long::longValue).sum();
        } else {
            v = exactQuarters(c, start, start + 86_400_000L).values().stream().mapToLong(Long::longValue).sum();
        }
        if (exactCache.size() > 100_000) {
            exactCache.clear();
        }
        exactCache.put(key, v);
        return v;
    }

    /** Exact spend by quarter in {@code [from, to)} from the rollup's 15-minute counters. */
    private Map<Long, Long> exactQuarters(Campaign c, long from, long to) throws IOException {
        List<Long> starts = new ArrayList<>();
        for (long q = from; q < to; q += SpendRows.QUARTER_MILLIS) {
            starts.add(q);
        }
        Map<Long, Long> out = new TreeMap<>();
        starts.forEach(q -> out.put(q, 0L));
        out.putAll(counters(c, Granularity.MINUTES_15, starts));
        return out;
    }

    private Map<Long, Long> counters(Campaign c, Granularity g, List<Long> bucketStarts) throws IOException {
        List<String> values = List.of(c.advertiser(), c.campaign());
        List<Get> gets = new ArrayList<>(bucketStarts.size());
        for (long start : bucketStarts) {
            gets.add(new Get(codec.counterKey(rollup, g, start / 60_000L, values)).addFamily(TableLayout.COUNTER_FAMILY));
        }
        Map<Long, Long> out = new TreeMap<>();
        try (Table t = connection.getTable(layout.counterTable(rollup))) {
            Result[] rs = t.get(gets);
            for (int i = 0; i < rs.length; i++) {
                if (!rs[i].isEmpty()) {
                    out.put(bucketStarts.get(i), CounterValues.value(rs[i], spendQualifier)); // base and writer cells
                }
            }
        }
        return out;
    }
}
