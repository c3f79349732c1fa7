package io.adreport.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.reconcile.profiles.ViewRepair;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
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
 * Rotating the device secret in the middle of traffic: views go through a real aggregator hashing
 * with the old secret, then through a restarted one with {@code current=new, previous=old}; the
 * check (real API) must count every view of each cap window exactly — views under the old hash,
 * under the new one, and a replayed view stored under both — before and after the nightly pass
 * (the production {@link ViewRepair}), which moves the devices seen since the rotation to the new
 * hash. Expected answers come from {@link #oracle}, a count over the view times this test sent.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecretRotationTest {
    private static final byte[] OLD = ServingStack.SECRET;
    private static final byte[] NEW = "0123456789abcdef-serving-rotated".getBytes(StandardCharsets.UTF_8);
    private static final Instant T0 = Instant.parse("2026-11-21T00:10:00Z");
    private static final long MINUTE = 60_000L;
    /** Campaign → its one cap's window (max 1: a capped answer reports the window's exact count). */
    private static final Map<String, Long> WINDOWS = Map.of("rot-h", 60 * MINUTE, "rot-d", 24 * 60 * MINUTE);
    private static final Map<String, String> LABELS = Map.of("rot-h", "1h", "rot-d", "1d");
    private static final Map<String, String> SETTINGS = Map.of("serve.deadline.ms", "5000");

    private final MutableClock clock = new MutableClock(T0);
    /** Device → the view times sent for it (each campaign gets the same times). */
    private final Map<String, List<Long>> views = new HashMap<>();
    private MiniHBase hbase;
    private ServingStack stack;

    @BeforeAll
    void start(MiniHBase hbase) {
        this.hbase = hbase;
    }

    @AfterAll
    void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void aRotationInTheMiddleOfTrafficLosesNoViewFromAnyCapWindowBeforeAndAfterTheNightlyMove() throws Exception {
        stack = new ServingStack(hbase, clock, SETTINGS, null, DeviceHashes.of(new DeviceHasher(OLD)));
        for (String c : WINDOWS.keySet()) {
            assertEquals(201, stack.put("/v1/campaigns/adv1/" + c, stack.adv1, "{\"frequencyCaps\": [{\"max\": 1, \"window\": \""
                    + LABELS.get(c) + "\"}]}").statusCode());
        }
        // Before: dev-a (seen again after the rotation) and dev-b (never again).
        List<String> before = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            before.addAll(views("a-old-" + i, T0.plusSeconds(600L * i), "dev-a"));
        }
        for (int i = 0; i < 4; i++) {
            before.addAll(views("b-old-" + i, T0.plusSeconds(300 + 1200L * i), "dev-b"));
        }
        clock.set(T0.plusSeconds(7200));
        assertEquals(200, stack.ingest(before).statusCode());

        // Restart with current=new, previous=old.
        String ns = stack.layout.namespace();
        stack.close();
        DeviceHashes rotating = DeviceHashes.of(NEW, OLD);
        stack = new ServingStack(hbase, clock, SETTINGS, ns, rotating);
        List<String> after = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            after.addAll(views("a-new-" + i, T0.plusSeconds(7200 + 600L * i), "dev-a"));
        }
        for (int i = 0; i < 3; i++) {
            after.addAll(views("c-new-" + i, T0.plusSeconds(7500 + 900L * i), "dev-c"));
        }
        // A replay of dev-a's last old view: the live path writes it again, now under the new hash.
        Instant replayed = T0.plusSeconds(600L * 5);
        for (String c : WINDOWS.keySet()) {
            after.add(ServingStack.impression("a-old-5-" + c, replayed, "dev-a", "adv1", c));
        }
        clock.set(T0.plusSeconds(4 * 3600));
        HttpResponse<String> r = stack.ingest(after);
        assertEquals(200, r.statusCode(), r.body());
        stack.serving.registry().refresh();

        String oldA = new DeviceHasher(OLD).hash("dev-a");
        String newA = rotating.current("dev-a");
        long replayedView = replayed.toEpochMilli();
        assertTrue(viewTimes(oldA).contains(replayedView) && viewTimes(newA).contains(replayedView),
                "the replayed view is stored under both hashes (it must count once)");
        assertEquals(6, viewTimes(oldA).size());
        int oldCells = cells(oldA);

        assertAnswers("after the rotation, before the nightly pass");

        ViewRepair repair = new ViewRepair(hbase.connection(), stack.layout,
                new UnidentifiedDevices(rotating, ProfileConfig.defaults().placeholders()));
        LocalDate day = LocalDate.ofInstant(T0, ZoneOffset.UTC);
        ViewRepair.Summary first = repair.repair(day).untimed();
        int impressions = before.size() + after.size() - WINDOWS.size(); // the replays are no new raw events
        assertEquals(new ViewRepair.Summary(impressions, impressions, 4, 0, 1, oldCells, 0), first,
                "every impression re-written; dev-a's old row (all its cells) moved; dev-c had none; dev-b was not seen since");
        assertEquals(0, cells(oldA), "dev-a's old row is gone");
        assertEquals(new TreeSet<>(times("dev-a")), viewTimes(newA), "dev-a's views are all under the new hash, once each");
        assertEquals(new TreeSet<>(times("dev-b")), viewTimes(new DeviceHasher(OLD).hash("dev-b")), "dev-b stays under the old hash");
        assertAnswers("after the nightly pass");

        ViewRepair.Summary second = repair.repair(day).untimed();
        assertEquals(new ViewRepair.Summary(impressions, impressions, 4, 0, 0, 0, 0), second, "a second pass moves nothing");
        assertEquals(0, cells(oldA), "the re-written old views stay deleted");
        assertAnswers("after a second pass");
    }

    /** The impressions of one view of {@code device} for each campaign at {@code t}; noted for the oracle. */
    private List<String> views(String id, Instant t, String device) {
        views.computeIfAbsent(device, d -> new ArrayList<>()).add(t.toEpochMilli());
        List<String> out = new ArrayList<>();
        for (String c : WINDOWS.keySet()) {
            out.add(ServingStack.impression(id + "-" + c, t, device, "adv1", c));
        }
        return out;
    }

    private List<Long> times(String device) {
        return views.get(device);
    }

    /** Each device, each campaign, at every instant where a window's count changes (and either side of it). */
    private void assertAnswers(String when) throws Exception {
        for (String device : List.of("dev-a", "dev-b", "dev-c")) {
            for (String c : WINDOWS.keySet()) {
                List<Long> probes = new ArrayList<>();
                for (long v : times(device)) {
                    for (long d = -1; d <= 1; d++) {
                        probes.add(v + d);
                        probes.add(v + WINDOWS.get(c) + d);
                    }
                }
                for (long t : probes) {
                    assertEquals(oracle(device, c, t), stack.answer(device, "adv1/" + c, Instant.ofEpochMilli(t)),
                            when + ": " + device + " " + c + " at " + Instant.ofEpochMilli(t));
                }
            }
        }
    }

    /** The answer a check must give: the views sent whose time lies inside the cap's window at {@code now}. */
    private String oracle(String device, String campaign, long now) {
        long inside = times(device).stream().filter(v -> v > now - WINDOWS.get(campaign)).count();
        return inside == 0 ? "allowed" : "capped " + LABELS.get(campaign) + " " + inside + "/1";
    }

    /** The view times stored in the row of {@code hash}, of campaign rot-h (each view once per row). */
    private TreeSet<Long> viewTimes(String hash) throws Exception {
        TreeSet<Long> out = new TreeSet<>();
        try (Table t = hbase.connection().getTable(stack.layout.profilesTable())) {
            Result r = t.get(new Get(new ProfileKey(stack.layout.cube().saltBuckets()).row(hash)).addFamily(TableLayout.VIEW_FAMILY));
            for (Cell c : r.isEmpty() ? new Cell[0] : r.rawCells()) {
                ViewCells.View v = ViewCells.decode(CellUtil.cloneQualifier(c));
                if (v.campaignKey().equals("adv1/rot-h")) {
                    out.add(v.tsMillis());
                }
            }
        }
        return out;
    }

    /** All cells of the row of {@code hash} (segments, views, index). */
    private int cells(String hash) throws Exception {
        try (Table t = hbase.connection().getTable(stack.layout.profilesTable())) {
            return t.get(new Get(new ProfileKey(stack.layout.cube().saltBuckets()).row(hash))).size();
        }
    }
}
