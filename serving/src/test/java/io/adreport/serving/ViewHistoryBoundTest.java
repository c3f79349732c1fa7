package io.adreport.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.adreport.reconcile.profiles.ViewRepair;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The count bound of the view history ({@link ViewCells#MAX_VIEWS_KEPT}, K): a device shown one
 * campaign more than K times answers every cap exactly, before the nightly pass (the check reads
 * the newest K) and after it (the pass keeps the newest K cells). Views go through the real
 * aggregator, checks through the real API, the pass is the production {@link ViewRepair};
 * expected answers come from {@link #oracle}, a count over the view times this test sent.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ViewHistoryBoundTest {
    private static final int K = ViewCells.MAX_VIEWS_KEPT;
    private static final int EXTRA = 40;
    private static final Instant DAY_START = Instant.parse("2026-11-21T00:10:00Z");
    private static final long HOUR = 3_600_000L;
    private static final long DAY = 86_400_000L;
    /** Caps of the hot campaign, shortest first (the order the answer names them in). */
    private static final long[] WINDOWS = {HOUR, DAY};
    private static final int[] MAX = {1_000, K};

    private final MutableClock clock = new MutableClock(DAY_START);
    private ServingStack stack;

    @BeforeAll
    void start(MiniHBase hbase) throws Exception {
        stack = new ServingStack(hbase, clock);
    }

    @AfterAll
    void stop() {
        stack.close();
    }

    @Test
    void aDeviceSeenMoreThanKTimesAnswersExactlyBeforeAndAfterTheTrimWhichKeepsTheNewestK() throws Exception {
        assertEquals(201, stack.put("/v1/campaigns/adv1/hot", stack.adv1, "{\"frequencyCaps\": [{\"max\": " + MAX[0]
                + ", \"window\": \"1h\"}, {\"max\": " + MAX[1] + ", \"window\": \"1d\"}]}").statusCode());
        assertEquals(201, stack.put("/v1/campaigns/adv1/other", stack.adv1, "{\"frequencyCaps\": [{\"max\": 3, \"window\": \"1d\"}]}")
                .statusCode());
        stack.serving.registry().refresh();

        // the bot: K + 40 views of adv1/hot one second apart (all on one UTC day), 3 of adv1/other;
        // a human: 5 views of adv1/hot
        List<Long> bot = new ArrayList<>();
        List<String> events = new ArrayList<>();
        for (int i = 0; i < K + EXTRA; i++) {
            Instant t = DAY_START.plusSeconds(i);
            bot.add(t.toEpochMilli());
            events.add(ServingStack.impression("bot-" + i, t, "bot-1", "adv1", "hot"));
        }
        for (int i = 0; i < 3; i++) {
            events.add(ServingStack.impression("bot-other-" + i, DAY_START.plusSeconds(100 + i), "bot-1", "adv1", "other"));
        }
        List<Long> human = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Instant t = DAY_START.plusSeconds(50 + 7L * i);
            human.add(t.toEpochMilli());
            events.add(ServingStack.impression("human-" + i, t, "human-1", "adv1", "hot"));
        }
        long last = bot.get(bot.size() - 1);
        clock.set(Instant.ofEpochMilli(last + 1_000));
        for (int from = 0; from < events.size(); from += 1_000) {
            HttpResponse<String> r = stack.ingest(events.subList(from, Math.min(events.size(), from + 1_000)));
            assertEquals(200, r.statusCode(), r.body());
        }
        assertEquals(K + EXTRA, cells("bot-1", "hot").size(), "before the nightly pass the history holds every view");

        List<Long> probes = probes(bot);
        assertAnswers("before the trim", probes, bot, human);

        ViewRepair repair = new ViewRepair(stack.hbase.connection(), stack.layout,
                new UnidentifiedDevices(new DeviceHasher(ServingStack.SECRET), ProfileConfig.defaults().placeholders()));
        LocalDate day = LocalDate.ofInstant(DAY_START, ZoneOffset.UTC);
        ViewRepair.Summary first = repair.repair(day);
        assertEquals(new ViewRepair.Summary(events.size(), events.size(), 2, EXTRA), first,
                "every impression re-written, two devices checked, the 40 oldest views of the bot's hot campaign deleted");

        List<Long> kept = cells("bot-1", "hot");
        List<Long> newest = newestFirst(bot.subList(EXTRA, bot.size()));
        assertEquals(newest, kept, "exactly K cells remain, the newest, newest first");
        assertEquals(3, cells("bot-1", "other").size(), "another campaign of the same device is untouched");
        assertEquals(newestFirst(human), cells("human-1", "hot"), "another device is untouched");
        assertAnswers("after the trim", probes, bot, human);

        ViewRepair.Summary second = repair.repair(day);
        assertEquals(new ViewRepair.Summary(events.size(), events.size(), 2, 0), second, "a second pass trims nothing");
        assertEquals(newest, cells("bot-1", "hot"), "the re-written old views stay deleted");
        assertAnswers("after a second pass", probes, bot, human);
    }

    /** Every boundary where an answer changes: each cap's window passing the views around its max and around K. */
    private static List<Long> probes(List<Long> bot) {
        List<Long> probes = new ArrayList<>();
        int n = bot.size();
        long last = bot.get(n - 1);
        probes.add(last);
        probes.add(last + 1);
        // the 1h cap stops holding 1,000 views when view n-1000 leaves it
        for (int j : new int[] {n - MAX[0] - 1, n - MAX[0], n - MAX[0] + 1}) {
            for (long d = -1; d <= 1; d++) {
                probes.add(bot.get(j) + HOUR + d);
            }
        }
        // the 1d cap: true count K+40 .. K+1 (reported K), K (the newest K exactly), K-1 (allowed)
        for (int j : new int[] {0, 1, EXTRA - 2, EXTRA - 1, EXTRA, EXTRA + 1}) {
            for (long d = -1; d <= 1; d++) {
                probes.add(bot.get(j) + DAY + d);
            }
        }
        probes.add(last + DAY);
        return probes;
    }

    private void assertAnswers(String when, List<Long> probes, List<Long> bot, List<Long> human) throws Exception {
        for (long p : probes) {
            Instant now = Instant.ofEpochMilli(p);
            assertEquals(oracle(bot, p), stack.answer("bot-1", "adv1/hot", now), when + ", bot at " + now);
            assertEquals(oracle(human, p), stack.answer("human-1", "adv1/hot", now), when + ", human at " + now);
        }
        Instant inDay = Instant.ofEpochMilli(bot.get(bot.size() - 1) + 1);
        assertEquals("capped 1d 3/3", stack.answer("bot-1", "adv1/other", inDay), when + ": the other campaign");
    }

    /**
     * The expected answer from the sent times alone: the shortest reached cap, or allowed. A
     * denial reports the window's count, which the check can know only up to K (it keeps the newest K).
     */
    private static String oracle(List<Long> views, long now) {
        for (int i = 0; i < WINDOWS.length; i++) {
            long w = WINDOWS[i];
            long inside = views.stream().filter(v -> v > now - w).count();
            if (inside >= MAX[i]) {
                return "capped " + (w == HOUR ? "1h" : "1d") + " " + Math.min(inside, K) + "/" + MAX[i];
            }
        }
        return "allowed";
    }

    private static List<Long> newestFirst(List<Long> times) {
        List<Long> copy = new ArrayList<>(times);
        java.util.Collections.reverse(copy);
        return copy;
    }

    /** The view times stored for a device and campaign, in stored order (newest first). */
    private List<Long> cells(String device, String campaign) throws Exception {
        byte[] row = new ProfileKey(stack.layout.cube().saltBuckets()).row(new DeviceHasher(ServingStack.SECRET).hash(device));
        byte[] prefix = ViewCells.prefix("adv1", campaign);
        List<Long> times = new ArrayList<>();
        try (Table t = stack.hbase.connection().getTable(stack.layout.profilesTable())) {
            Result r = t.get(new Get(row).addFamily(TableLayout.VIEW_FAMILY));
            for (Cell c : r.rawCells()) {
                byte[] q = CellUtil.cloneQualifier(c);
                if (java.util.Arrays.equals(q, 0, Math.min(q.length, prefix.length), prefix, 0, prefix.length)) {
                    times.add(ViewCells.decode(q).tsMillis());
                }
            }
        }
        return times;
    }
}
