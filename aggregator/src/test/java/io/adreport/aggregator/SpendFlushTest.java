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
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Mutation;
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
 * lost and nothing counted twice.
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
        return name -> {
            Table table = real.open(name);
            return (Table) Proxy.newProxyInstance(Table.class.getClassLoader(), new Class<?>[] {Table.class}, (proxy, method, args) -> {
                if (method.getName().equals("batch") && args != null && args.length == 2) {
                    List<?> actions = (List<?>) args[0];
                    int n = calls.size();
                    calls.add(actions.size());
                    cells.add(actions.stream().mapToInt(a -> a instanceof Mutation m ? m.size() : 1).sum());
                    if (failCall.compareAndSet(n, -1)) {
                        throw new IOException("injected: call " + n + " refused before it reached HBase");
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
