package io.adreport.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.meta.AggregatorState;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The nightly pass repairs device view histories inside the recount's map tasks
 * ({@code TaskViewRepair}), from the raw rows the recount reads anyway: through the production
 * {@link Reconciler} ({@code withViewRepair}, the rule {@code bin/adreport reconcile} uses) and
 * the real MapReduce job, after impressions went through the real aggregator. Expected histories
 * come from the view times this test sent, never from the repair.
 */
@ExtendWith(HBaseExtension.class)
class NightlyViewRepairTest {
    private static final Instant DAY_START = Instant.parse("2026-11-20T00:10:00Z");
    private static final LocalDate DAY = LocalDate.parse("2026-11-20");
    private static final int K = ViewCells.MAX_VIEWS_KEPT;
    private static final int EXTRA = 25;

    @Test
    void theRecountRestoresLostViewsAndKeepsTheNewestKPerCampaign(MiniHBase hbase) throws Exception {
        MutableClock clock = new MutableClock(DAY_START);
        try (ServingStack stack = ServingStack.withDefaultCube(hbase, clock)) {
            List<Long> bot = new ArrayList<>();
            List<Long> human = new ArrayList<>();
            List<String> events = new ArrayList<>();
            for (int i = 0; i < K + EXTRA; i++) {
                Instant t = DAY_START.plusSeconds(i);
                bot.add(t.toEpochMilli());
                events.add(ServingStack.impression("bot-" + i, t, "bot-1", "adv1", "hot"));
            }
            for (int i = 0; i < 6; i++) {
                Instant t = DAY_START.plusSeconds(40 + 11L * i);
                human.add(t.toEpochMilli());
                events.add(ServingStack.impression("human-" + i, t, "human-1", "adv1", "hot"));
            }
            clock.set(Instant.ofEpochMilli(bot.get(bot.size() - 1) + 1_000)); // no event from the future
            ingest(stack, events);
            assertEquals(K + EXTRA, cells(stack, "bot-1", "hot").size(), "the live path wrote every view of the bot");
            assertEquals(newestFirst(human), cells(stack, "human-1", "hot"), "the live path wrote every view of the human");

            // a crash between the raw write and the view write: the human's history loses everything
            deleteViews(stack, "human-1");
            assertEquals(List.of(), cells(stack, "human-1", "hot"), "the views are lost (else the test proves nothing)");
            assertEquals(K + EXTRA, cells(stack, "bot-1", "hot").size(), "before the pass the bot holds every view");

            clock.set(Instant.parse("2026-11-21T06:00:00Z"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            // a loss nobody recorded (no failed write, no unclean stop): only asked for, the pass writes the views again
            reconciler(stack, hbase.configuration(), clock, "always").reconcile(DAY, false, new PrintStream(out, true, StandardCharsets.UTF_8));
            String printed = out.toString(StandardCharsets.UTF_8);

            assertEquals(newestFirst(human), cells(stack, "human-1", "hot"), "the lost views are back, from the raw events");
            assertEquals(newestFirst(bot.subList(EXTRA, bot.size())), cells(stack, "bot-1", "hot"),
                    "the bot keeps exactly its newest K views of the campaign");
            assertTrue(printed.contains("views: " + events.size() + " impressions re-written into device view histories"), printed);
            java.util.regex.Matcher trims = java.util.regex.Pattern.compile("(\\d+) device checks and (\\d+) view trims in map tasks").matcher(printed);
            assertTrue(trims.find(), printed);
            // each map task whose split holds some of the bot's views trims the same 25 exact versions
            assertTrue(Long.parseLong(trims.group(2)) >= EXTRA && Long.parseLong(trims.group(2)) % EXTRA == 0, printed);
            assertTrue(printed.matches("(?s).*phases: close [0-9.]+ s, recount [0-9.]+ s \\(view repair [0-9.]+ s in map tasks\\).*"), printed);
            DayState state = new DayStatusStore(hbase.connection(), stack.layout, clock).day(DAY);
            assertEquals(DayStatus.RECONCILED, state.status());
            assertTrue(state.settled(), "a repair that succeeded leaves the day settled");
        }
    }

    @Test
    void aFailingRepairNeverFailsTheRecountAndLeavesTheDayToBePassedAgain(MiniHBase hbase) throws Exception {
        MutableClock clock = new MutableClock(DAY_START);
        try (ServingStack stack = ServingStack.withDefaultCube(hbase, clock)) {
            List<String> events = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                events.add(ServingStack.impression("f-" + i, DAY_START.plusSeconds(i), "dev-" + (i % 3), "adv1", "hot"));
            }
            clock.set(DAY_START.plusSeconds(60));
            ingest(stack, events);
            TableName profiles = stack.layout.profilesTable();
            try (Admin admin = hbase.connection().getAdmin()) {
                admin.disableTable(profiles); // every write of the repair fails
                try {
                    clock.set(Instant.parse("2026-11-21T06:00:00Z"));
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    Configuration conf = new Configuration(hbase.configuration());
                    conf.setInt("hbase.client.retries.number", 2);
                    reconciler(stack, conf, clock, "always").reconcile(DAY, false, new PrintStream(out, true, StandardCharsets.UTF_8));
                    String printed = out.toString(StandardCharsets.UTF_8);
                    assertTrue(printed.contains("FAILED in "), printed);
                } finally {
                    admin.enableTable(profiles);
                }
            }
            DayState state = new DayStatusStore(hbase.connection(), stack.layout, clock).day(DAY);
            assertEquals(DayStatus.RECONCILED, state.status(), "the recount itself succeeded");
            assertFalse(state.settled(), "the day is marked late: the next night repairs it again");
        }
    }

    @Test
    void byDefaultOnlyADayThatMayMissAViewIsRewrittenAndAFailedViewWriteMakesItSo(MiniHBase hbase) throws Exception {
        MutableClock clock = new MutableClock(DAY_START);
        try (ServingStack stack = ServingStack.withDefaultCube(hbase, clock)) {
            List<Long> human = new ArrayList<>();
            List<String> events = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                Instant t = DAY_START.plusSeconds(40 + 11L * i);
                human.add(t.toEpochMilli());
                events.add(ServingStack.impression("gap-" + i, t, "gap-human", "adv1", "hot"));
            }
            clock.set(DAY_START.plusSeconds(120));
            ingest(stack, events);
            deleteViews(stack, "gap-human"); // lost without a trace: no failed write, no unclean stop
            DayStatusStore days = new DayStatusStore(hbase.connection(), stack.layout, clock);

            clock.set(Instant.parse("2026-11-21T06:00:00Z"));
            awaitHeartbeat(stack, clock); // else the clock's jump makes the live aggregator look lapsed: an unclean stop
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            reconciler(stack, hbase.configuration(), clock, "gaps").reconcile(DAY, false, new PrintStream(out, true, StandardCharsets.UTF_8));
            String printed = out.toString(StandardCharsets.UTF_8);
            assertTrue(printed.contains("views: not re-written (no view write failed and no aggregator stopped uncleanly"), printed);
            assertEquals(List.of(), cells(stack, "gap-human", "hot"), "a loss nobody recorded is not repaired by default");
            assertTrue(days.day(DAY).settled());

            // a late impression of the day whose view write fails: answered 503, its raw row stored, the day's gap recorded
            TableName profiles = stack.layout.profilesTable();
            Instant lateTs = DAY_START.plusSeconds(500);
            try (Admin admin = hbase.connection().getAdmin()) {
                admin.disableTable(profiles);
                try {
                    HttpResponse<String> r = stack.ingest(List.of(ServingStack.impression("gap-late", lateTs, "gap-human", "adv1", "hot")));
                    assertEquals(503, r.statusCode(), r.body());
                } finally {
                    admin.enableTable(profiles);
                }
            }
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (days.viewGap(DAY) == null) {
                assertTrue(System.nanoTime() < deadline, "the aggregator recorded no view gap within a minute");
                Thread.sleep(100);
            }
            out.reset();
            reconciler(stack, hbase.configuration(), clock, "gaps").reconcile(DAY, false, new PrintStream(out, true, StandardCharsets.UTF_8));
            printed = out.toString(StandardCharsets.UTF_8);
            assertTrue(printed.contains("views: 7 impressions re-written into device view histories (a view write failed"), printed);
            List<Long> all = new ArrayList<>(human);
            all.add(lateTs.toEpochMilli());
            assertEquals(newestFirst(all), cells(stack, "gap-human", "hot"),
                    "every view of the day is back, the failed one with the ones lost without a trace");
            assertEquals(null, days.viewGap(DAY), "the gap is removed once the views are written again");
        }
    }

    /** Waits until the stack's aggregator has heartbeaten at the clock's present time (its poll runs every second). */
    private static void awaitHeartbeat(ServingStack stack, MutableClock clock) throws InterruptedException {
        HeartbeatStore heartbeats = new HeartbeatStore(stack.hbase.connection(), stack.layout, clock);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            AggregatorState a = heartbeats.aggregator("serve-test");
            if (a != null && a.heartbeat() != null && !a.heartbeat().isBefore(clock.instant())) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "no heartbeat of the aggregator at " + clock.instant() + " within a minute: " + a);
            Thread.sleep(100);
        }
    }

    private static Reconciler reconciler(ServingStack stack, Configuration conf, MutableClock clock, String rewrite) {
        Reconciler plain = new Reconciler(conf, stack.hbase.connection(), stack.layout,
                ReconcileConfig.of(Map.of("reconcile.grace.ms", "60000", "reconcile.views.rewrite", rewrite)), clock);
        Reconciler r = Reconciler.withViewRepair(plain, stack.hbase.connection(), stack.layout,
                DeviceHashes.of(new DeviceHasher(ServingStack.SECRET)), ProfileConfig.defaults());
        assertTrue(r.repairsViews());
        return r;
    }

    private static void ingest(ServingStack stack, List<String> events) throws Exception {
        for (int from = 0; from < events.size(); from += 1_000) {
            HttpResponse<String> r = stack.ingest(events.subList(from, Math.min(events.size(), from + 1_000)));
            assertEquals(200, r.statusCode(), r.body());
        }
    }

    private static byte[] row(ServingStack stack, String device) {
        return new ProfileKey(stack.layout.cube().saltBuckets()).row(new DeviceHasher(ServingStack.SECRET).hash(device));
    }

    /**
     * Loses a device's views as a crash before the view write would: deleted, and the delete
     * marker compacted away (a marker left would mask the repair's Puts, which never happens to
     * a view that was not written).
     */
    private static void deleteViews(ServingStack stack, String device) throws Exception {
        byte[] row = row(stack, device);
        TableName name = stack.layout.profilesTable();
        try (Table t = stack.hbase.connection().getTable(name); Admin admin = stack.hbase.connection().getAdmin()) {
            t.delete(new Delete(row).addFamily(TableLayout.VIEW_FAMILY));
            admin.flush(name);
            admin.majorCompact(name);
            Scan raw = new Scan().withStartRow(row, true).withStopRow(row, true).addFamily(TableLayout.VIEW_FAMILY).setRaw(true);
            long deadline = System.nanoTime() + 180_000_000_000L;
            while (true) {
                try (ResultScanner rs = t.getScanner(raw)) {
                    if (rs.next() == null) {
                        return; // neither the views nor the marker are stored
                    }
                }
                assertTrue(System.nanoTime() < deadline, "the major compaction of " + name + " did not finish in 3 minutes");
                Thread.sleep(200);
            }
        }
    }

    /** The view times stored for a device and campaign, in stored order (newest first). */
    private static List<Long> cells(ServingStack stack, String device, String campaign) throws Exception {
        byte[] prefix = ViewCells.prefix("adv1", campaign);
        List<Long> times = new ArrayList<>();
        try (Table t = stack.hbase.connection().getTable(stack.layout.profilesTable())) {
            Result r = t.get(new Get(row(stack, device)).addFamily(TableLayout.VIEW_FAMILY));
            for (Cell c : r.rawCells()) {
                byte[] q = CellUtil.cloneQualifier(c);
                if (Arrays.equals(q, 0, Math.min(q.length, prefix.length), prefix, 0, prefix.length)) {
                    times.add(ViewCells.decode(q).tsMillis());
                }
            }
        }
        return times;
    }

    private static List<Long> newestFirst(List<Long> times) {
        List<Long> copy = new ArrayList<>(times);
        Collections.reverse(copy);
        return copy;
    }
}
