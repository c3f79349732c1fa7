package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.aggregator.spend.SpendFlusher;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.Event;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.spend.SpendRows;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A spend flush of a back-fill (every campaign, several quarters each) goes out in calls of at most
 * {@link SpendFlusher#BATCH_ROWS} rows, and a call that fails leaves its rows and the unsent rest
 * to the next flush: the stored quarters then equal the test's own sums of what it added, nothing
 * lost and nothing counted twice. A call that the region server applied but whose answer never
 * came (its handler outlasted the client's timeout, or the answer was lost) is sent again and
 * applied once.
 */
@ExtendWith(HBaseExtension.class)
class SpendFlushTest {
    private static final int CAMPAIGNS = 2_400;
    private static final String SHARD = "spend-test";

    @Test
    void aBackfillsSpendIsWrittenInBoundedCallsAndExactlyOnce(MiniHBase hbase) throws Exception {
        TableLayout layout = TestStack.shared(hbase).window().layout();
        List<Integer> calls = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger failCall = new AtomicInteger(-1);
        TableSource tables = recording(TableSource.of(hbase.connection(), Duration.ofSeconds(30)), calls, failCall);
        Map<String, Map<Long, Long>> expected = new TreeMap<>();
        long base = SpendRows.quarterStart(Instant.parse("2026-11-20T00:00:00Z").toEpochMilli());
        try (SpendFlusher flusher = new SpendFlusher(tables, layout, SHARD, Duration.ofMinutes(10), Clock.systemUTC(), new Metrics())) {
            add(flusher, expected, base, 0);
            flusher.flushNow();
            // 2,400 Increments and 2,400 bound Puts: five calls, none above the bound.
            assertEquals(List.of(1_000, 1_000, 1_000, 1_000, 800), calls);
            assertEquals(expected, stored(hbase, layout));

            // The second call of the next flush fails before it reaches HBase: the first call is stored, the
            // second and the three after it (not sent) wait for the flush after.
            calls.clear();
            failCall.set(1);
            add(flusher, expected, base, 1);
            flusher.flushNow();
            assertEquals(List.of(1_000, 1_000), calls, "no call is sent after a failed one");
            assertTrue(!expected.equals(stored(hbase, layout)), "the failed and unsent rows are not stored yet");
            flusher.flushNow();
            assertEquals(expected, stored(hbase, layout));
        }
    }

    @Test
    void aCallHoldsAtMostBatchCellsCellsWhenEachCampaignSpentAllDay(MiniHBase hbase) throws Exception {
        TableLayout layout = TestStack.shared(hbase).window().layout();
        List<Integer> calls = Collections.synchronizedList(new ArrayList<>());
        List<Integer> cells = Collections.synchronizedList(new ArrayList<>());
        TableSource tables = recording(TableSource.of(hbase.connection(), Duration.ofSeconds(30)), calls, new AtomicInteger(-1), cells);
        Map<String, Map<Long, Long>> expected = new TreeMap<>();
        long day = SpendRows.quarterStart(Instant.parse("2026-11-21T00:00:00Z").toEpochMilli());
        String shard = "spend-test-day";
        try (SpendFlusher flusher = new SpendFlusher(tables, layout, shard, Duration.ofMinutes(10), Clock.systemUTC(), new Metrics())) {
            for (int c = 0; c < 300; c++) { // a back-fill of one day: every quarter of it, 96 quarter cells + a day cell + lifetime per Increment
                for (int q = 0; q < 96; q++) {
                    long quarter = day + q * SpendRows.QUARTER_MILLIS;
                    long cost = 10 + c + q;
                    flusher.add(new Event(ProfileModel.IMPRESSION, "d" + c + "-" + q, Instant.ofEpochMilli(quarter + 1_000),
                            Map.of(ProfileModel.ADVERTISER, "adv" + c / 10, ProfileModel.CAMPAIGN, "day" + c),
                            Map.of(SpendRows.COST_FIELD, cost), null, Map.of()));
                    expected.computeIfAbsent("adv" + c / 10 + "/day" + c, k -> new TreeMap<>()).merge(quarter, cost, Long::sum);
                }
            }
            flusher.flushNow();
        }
        int total = cells.stream().mapToInt(Integer::intValue).sum();
        assertTrue(total >= 300 * 98, "300 Increments of 98 cells and their bound Puts: " + total + " cells");
        assertTrue(cells.stream().allMatch(n -> n <= SpendFlusher.BATCH_CELLS), "every call within the cell bound: " + cells);
        assertTrue(calls.size() >= total / SpendFlusher.BATCH_CELLS, "the rows went out in several calls: " + calls);
        assertEquals(expected, stored(hbase, layout, shard));
    }

    @Test
    void aFlushWhoseAnswerWasLostIsSentAgainAndAppliedOnce(MiniHBase hbase) throws Exception {
        TableLayout layout = TestStack.shared(hbase).window().layout();
        String shard = "spend-test-lost";
        List<Integer> calls = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger loseCall = new AtomicInteger(-1);
        TableSource tables = recording(TableSource.of(hbase.connection(), Duration.ofSeconds(30)), calls, new AtomicInteger(-1),
                new ArrayList<>(), loseCall);
        Map<String, Map<Long, Long>> expected = new TreeMap<>();
        long base = SpendRows.quarterStart(Instant.parse("2026-11-22T00:00:00Z").toEpochMilli());
        try (SpendFlusher flusher = new SpendFlusher(tables, layout, shard, Duration.ofMinutes(10), Clock.systemUTC(), new Metrics())) {
            add(flusher, expected, base, 0);
            flusher.flushNow();
            assertEquals(expected, stored(hbase, layout, shard));

            // The second call of the next flush reaches HBase and is applied, and its answer is lost.
            calls.clear();
            loseCall.set(1);
            add(flusher, expected, base, 1);
            flusher.flushNow();
            assertEquals(List.of(1_000, 1_000), calls, "no call is sent after a failed one");
            Map<String, Map<Long, Long>> now = stored(hbase, layout, shard);
            assertEquals(2_000, expected.keySet().stream().filter(k -> expected.get(k).equals(now.get(k))).count(),
                    "the first call and the lost one (1,000 rows each) were applied, the last 400 rows not sent");
            add(flusher, expected, base, 2); // new spend for every campaign, also those in doubt
            flusher.flushNow();
            flusher.flushNow(); // the new spend of the rows that were in doubt
            assertEquals(expected, stored(hbase, layout, shard), "each flush applied once, the lost one too");
            assertEquals(lifetimes(expected), lifetimes(hbase, layout, shard), "lifetime cells: the sums of their quarters");
        }
        // A new process for the same shard reads each row's flush count and goes on from it.
        try (SpendFlusher flusher = new SpendFlusher(tables, layout, shard, Duration.ofMinutes(10), Clock.systemUTC(), new Metrics())) {
            add(flusher, expected, base, 3);
            flusher.flushNow();
            assertEquals(expected, stored(hbase, layout, shard));
        }
    }

    @Test
    void aFlushThatOutlastsTheTimeoutOnTheRegionServerIsAppliedOnce(MiniHBase hbase) throws Exception {
        TableLayout layout = TestStack.shared(hbase).window().layout();
        String shard = "spend-test-slow";
        try (Admin admin = hbase.connection().getAdmin()) {
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(layout.spendTable()))
                    .setCoprocessor(SlowSpendWrite.class.getName()).build());
        }
        Map<String, Map<Long, Long>> expected = new TreeMap<>();
        long quarter = SpendRows.quarterStart(Instant.parse("2026-11-23T10:00:00Z").toEpochMilli());
        Metrics metrics = new Metrics();
        try (SpendFlusher flusher = new SpendFlusher(TableSource.of(hbase.connection(), Duration.ofSeconds(2)), layout, shard,
                Duration.ofMinutes(10), Clock.systemUTC(), metrics)) {
            spend(flusher, expected, "c-slow", quarter, 1_000);
            flusher.flushNow();
            SlowSpendWrite.arm(shard);
            spend(flusher, expected, "c-slow", quarter, 250);
            flusher.flushNow(); // the region server applies it and holds the answer 5 s; the client gives up at 2 s
            assertTrue(SlowSpendWrite.held.await(30, TimeUnit.SECONDS), "the write was held past the client's timeout");
            assertEquals(1.0, gauge(metrics, "adreport_spend_in_doubt_rows"), "the flush is in doubt");
            assertEquals(expected, stored(hbase, layout, shard), "applied by the server although the client timed out");
            spend(flusher, expected, "c-slow", quarter, 40);
            flusher.flushNow(); // sent again unchanged: found applied
            assertEquals(0.0, gauge(metrics, "adreport_spend_in_doubt_rows"));
            flusher.flushNow(); // the 40 that waited
            assertEquals(expected, stored(hbase, layout, shard), "1,290 once, not 1,540");
        } finally {
            SlowSpendWrite.arm(null);
        }
    }

    /** Holds, once, a spend write of the armed shard's rows for 5 s after it was applied (a slow handler). */
    public static final class SlowSpendWrite implements RegionCoprocessor, RegionObserver {
        private static volatile String shard;
        static volatile CountDownLatch held = new CountDownLatch(1);

        static void arm(String s) {
            held = new CountDownLatch(1);
            shard = s;
        }

        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        @Override
        public void postBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch) {
            String s = shard;
            if (s == null) {
                return;
            }
            for (int i = 0; i < batch.size(); i++) {
                Mutation m = batch.getOperation(i);
                if (Bytes.toString(m.getRow()).endsWith("\0" + s) && m.getFamilyCellMap().getOrDefault(SpendRows.FAMILY, List.of()).stream()
                        .anyMatch(cell -> cell.getQualifierLength() > 0
                                && cell.getQualifierArray()[cell.getQualifierOffset()] == SpendRows.QUARTER_PREFIX)) {
                    shard = null;
                    try {
                        Thread.sleep(5_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    held.countDown();
                    return;
                }
            }
        }
    }

    private static void spend(SpendFlusher flusher, Map<String, Map<Long, Long>> expected, String campaign, long quarter, long cost) {
        flusher.add(new Event(ProfileModel.IMPRESSION, campaign + "-" + cost, Instant.ofEpochMilli(quarter + 1_000),
                Map.of(ProfileModel.ADVERTISER, "adv-slow", ProfileModel.CAMPAIGN, campaign),
                Map.of(SpendRows.COST_FIELD, cost), null, Map.of()));
        expected.computeIfAbsent("adv-slow/" + campaign, k -> new TreeMap<>()).merge(quarter, cost, Long::sum);
    }

    private static double gauge(Metrics metrics, String name) {
        return metrics.scrape().lines().filter(l -> l.startsWith(name + " ")).mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1)))
                .findFirst().orElseThrow(() -> new AssertionError(name + " not exported"));
    }

    private static Map<String, Long> lifetimes(Map<String, Map<Long, Long>> quarters) {
        Map<String, Long> out = new TreeMap<>();
        quarters.forEach((k, v) -> out.put(k, v.values().stream().mapToLong(Long::longValue).sum()));
        return out;
    }

    /** Per "advertiser/campaign": the lifetime cell of this shard's rows. */
    private static Map<String, Long> lifetimes(MiniHBase hbase, TableLayout layout, String shard) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        try (Table t = hbase.connection().getTable(layout.spendTable()); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result r : rs) {
                String[] parts = Bytes.toString(r.getRow()).split("\0");
                byte[] v = r.getValue(SpendRows.FAMILY, SpendRows.LIFETIME);
                if (parts[2].equals(shard) && v != null) {
                    out.put(parts[0] + "/" + parts[1], Bytes.toLong(v));
                }
            }
        }
        return out;
    }

    /** Three quarters of spend for every campaign, round {@code round}'s amounts, also summed into {@code expected}. */
    private static void add(SpendFlusher flusher, Map<String, Map<Long, Long>> expected, long base, int round) {
        for (int c = 0; c < CAMPAIGNS; c++) {
            for (int q = 0; q < 3; q++) {
                long quarter = base + (long) (c % 90 + q) * SpendRows.QUARTER_MILLIS;
                long cost = 100 + c + 7L * q + 1_000L * round;
                String campaign = "c" + c;
                flusher.add(new Event(ProfileModel.IMPRESSION, campaign + "-" + q + "-" + round, Instant.ofEpochMilli(quarter + 1_000),
                        Map.of(ProfileModel.ADVERTISER, "adv" + c / 10, ProfileModel.CAMPAIGN, campaign),
                        Map.of(SpendRows.COST_FIELD, cost), null, Map.of()));
                expected.computeIfAbsent("adv" + c / 10 + "/" + campaign, k -> new TreeMap<>()).merge(quarter, cost, Long::sum);
            }
        }
    }

    /** Per "advertiser/campaign": the quarter cells of this shard's rows, read back from HBase. */
    private static Map<String, Map<Long, Long>> stored(MiniHBase hbase, TableLayout layout) throws IOException {
        return stored(hbase, layout, SHARD);
    }

    private static Map<String, Map<Long, Long>> stored(MiniHBase hbase, TableLayout layout, String shard) throws IOException {
        Map<String, Map<Long, Long>> out = new TreeMap<>();
        try (Table t = hbase.connection().getTable(layout.spendTable()); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result r : rs) {
                String[] parts = Bytes.toString(r.getRow()).split("\0");
                if (!parts[2].equals(shard)) {
                    continue;
                }
                for (Cell cell : r.rawCells()) {
                    byte[] q = CellUtil.cloneQualifier(cell);
                    if (q.length > 0 && q[0] == SpendRows.QUARTER_PREFIX) {
                        out.computeIfAbsent(parts[0] + "/" + parts[1], k -> new TreeMap<>())
                                .put(SpendRows.parseQuarter(q), Bytes.toLong(CellUtil.cloneValue(cell)));
                    }
                }
            }
        }
        return out;
    }

    /** Tables whose {@code batch} records each call's size; the call numbered {@code failCall} (from 0, once) fails unsent. */
    private static TableSource recording(TableSource real, List<Integer> calls, AtomicInteger failCall) {
        return recording(real, calls, failCall, new ArrayList<>());
    }

    /** As above, also recording each call's cells (the mutations' cell counts). */
    private static TableSource recording(TableSource real, List<Integer> calls, AtomicInteger failCall, List<Integer> cells) {
        return recording(real, calls, failCall, cells, new AtomicInteger(-1));
    }

    /** As above; the call numbered {@code loseCall} (once) is sent and applied, and its answers are lost. */
    private static TableSource recording(TableSource real, List<Integer> calls, AtomicInteger failCall, List<Integer> cells,
                                         AtomicInteger loseCall) {
        return name -> {
            Table table = real.open(name);
            return (Table) Proxy.newProxyInstance(Table.class.getClassLoader(), new Class<?>[] {Table.class}, (proxy, method, args) -> {
                if (method.getName().equals("batch") && args != null && args.length == 2) {
                    List<?> actions = (List<?>) args[0];
                    int n = calls.size();
                    calls.add(actions.size());
                    cells.add(actions.stream().mapToInt(a -> WriteTally.cells((Row) a)).sum());
                    if (failCall.compareAndSet(n, -1)) {
                        throw new IOException("injected: call " + n + " refused before it reached HBase");
                    }
                    if (loseCall.compareAndSet(n, -1)) {
                        @SuppressWarnings("unchecked") List<? extends Row> rows = (List<? extends Row>) actions;
                        table.batch(rows, (Object[]) args[1]);
                        Arrays.fill((Object[]) args[1], null);
                        throw new IOException("injected: call " + n + " applied, its answers lost");
                    }
                }
                try {
                    return method.invoke(table, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
        };
    }
}
