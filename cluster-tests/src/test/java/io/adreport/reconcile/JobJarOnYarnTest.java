package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.reconcile.Recount.Cell;
import io.adreport.reconcile.Recount.Ev;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.SchemaApplier;
import io.adreport.schema.table.TableLayout;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reconcile job jar — the shaded {@code -job.jar} that {@code hadoop jar} runs — submitted
 * through {@link ToolRunner} as on an edge node, to YARN ({@code MiniMRYarnCluster}: a resource
 * manager, a node manager, the MapReduce application master and every task in their own JVMs)
 * over HDFS ({@code MiniDFSCluster}), against HBase with 3 region servers.
 *
 * <p>The jar is loaded as {@code hadoop jar} loads it (RunJar: a class loader over the jar whose
 * parent holds Hadoop and HBase, set as the thread's context loader), so {@code ReconcileTool}
 * and the job's classes come from the jar and not from this module's classpath, which has none
 * of reconcile-job's main classes. The job must then find everything a task needs in the job
 * configuration: the cube as its source text, the {@code ReconcileConfig} settings, HBase's
 * connection settings. Expected counters come from the independent {@link Recount} oracle.
 *
 * <p>One cluster for the class (its start takes ~1 min on 2 cores); data in its own namespace.
 */
class JobJarOnYarnTest {
    private static final LocalDate D = LocalDate.now(ZoneOffset.UTC).minusDays(2);
    private static final LocalDate PREV = D.minusDays(1);

    private static HBaseTestingUtility util;
    private static Connection connection;

    private final Random rnd = new Random(20261130);

    @BeforeAll
    static void cluster() throws Exception {
        org.apache.hadoop.metrics2.lib.DefaultMetricsSystem.setMiniClusterMode(true);
        util = new HBaseTestingUtility();
        Configuration conf = util.getConfiguration();
        conf.setInt("hbase.master.info.port", -1);
        conf.setInt("hbase.regionserver.info.port", -1);
        conf.setInt("hbase.client.retries.number", 10);
        util.startMiniCluster(StartMiniClusterOption.builder().numMasters(1).numRegionServers(3).numDataNodes(1).build());
        util.startMiniMapReduceCluster();
        // Containers are JVMs of their own: small heaps for a 2-core machine, and the opens that
        // Hadoop 3.3's own application master and tasks need on JDK 17 (a cluster's mapred-site
        // sets them once for every job; the reconcile job itself needs none).
        Configuration mr = util.getConfiguration();
        String opens = System.getProperty("adreport.container.opens", "");
        mr.setInt("yarn.app.mapreduce.am.resource.mb", 768);
        mr.set("yarn.app.mapreduce.am.command-opts", "-Xmx512m " + opens);
        mr.setInt("mapreduce.map.memory.mb", 512);
        mr.setInt("mapreduce.reduce.memory.mb", 512);
        mr.set("mapreduce.map.java.opts", "-Xmx384m " + opens);
        mr.set("mapreduce.reduce.java.opts", "-Xmx384m " + opens);
        connection = ConnectionFactory.createConnection(util.getConfiguration());
    }

    @AfterAll
    static void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (util != null) {
            util.shutdownMiniMapReduceCluster();
            util.shutdownMiniCluster();
        }
    }

    @Test
    void the_job_jar_run_by_tool_runner_on_yarn_makes_two_damaged_days_exact_one_by_puts_one_by_bulk_load(@TempDir Path dir)
            throws Exception {
        Configuration conf = new Configuration(util.getConfiguration());
        assertEquals("yarn", conf.get("mapreduce.framework.name"), "the job goes to YARN, not the local job runner");
        assertTrue(conf.get("fs.defaultFS").startsWith("hdfs://"), "over HDFS");

        // A cube of its own (4 salt buckets), given to the tool as a file, as an operator would.
        String yaml = new String(CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE).readAllBytes(),
                StandardCharsets.UTF_8).replace("Buckets: 16", "Buckets: 4");
        assertNotEquals(-1, yaml.indexOf("Buckets: 4"));
        Path cubeFile = Files.writeString(dir.resolve("ads-4.yaml"), yaml);
        Cube cube = CubeLoader.load(cubeFile);
        TableLayout layout = new TableLayout(cube, "yarn_" + Math.abs(rnd.nextInt(1_000_000)));
        new SchemaApplier(layout).apply(connection.getAdmin(), false);
        assertTrue(serversHolding(layout).size() >= 2, "the day's tables are spread over several region servers: " + serversHolding(layout));

        LivePath live = new LivePath(connection, layout);
        RowKeyCodec keys = new RowKeyCodec(cube);
        for (LocalDate day : List.of(PREV, D)) {
            traffic(live, day, day.equals(D) ? 150 : 12); // D has lost many more increments: many more corrections
            damage(live, keys, cube, day);
        }
        List<Ev> all = live.stored();
        Map<LocalDate, Map<Cell, Long>> exact = new HashMap<>();
        Map<LocalDate, long[]> drift = new HashMap<>();
        for (LocalDate day : List.of(PREV, D)) {
            exact.put(day, live.oracle().exact(all, day));
            Map<Cell, Long> before = longs(live.cellsOfDay(day));
            assertNotEquals(exact.get(day), before, "the counters of " + day + " are damaged before the run");
            drift.put(day, expectedDrift(exact.get(day), live.cellsOfDay(day)));
        }
        // The write path is chosen per reduce task by its number of corrections: a threshold above
        // every task's share of PREV sends PREV by Puts; D's tasks at or above it go by HFiles and
        // BulkLoadHFiles, staged on HDFS and loaded by the region servers.
        int threshold = (int) Math.max(drift.get(PREV)[4], drift.get(PREV)[5]) + 1;
        long bulkOnD = (drift.get(D)[4] >= threshold ? drift.get(D)[4] : 0) + (drift.get(D)[5] >= threshold ? drift.get(D)[5] : 0);
        assertTrue(bulkOnD > 0, "the data gives a reduce task of D more corrections than any of PREV: "
                + java.util.Arrays.toString(drift.get(PREV)) + " vs " + java.util.Arrays.toString(drift.get(D)));

        // A live aggregator takes part in the day-close handshake: it acknowledges each day it
        // sees closed in the meta table (after flushing it, in a real one) with its heartbeat.
        DayStatusStore meta = new DayStatusStore(connection, layout, Clock.systemUTC());
        HeartbeatStore heartbeats = new HeartbeatStore(connection, layout, Clock.systemUTC());
        heartbeats.heartbeat("agg-edge", Set.of());
        AtomicBoolean stop = new AtomicBoolean();
        Thread aggregator = new Thread(() -> {
            while (!stop.get()) {
                heartbeats.heartbeat("agg-edge", meta.closedDays(PREV, D));
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "aggregator-heartbeat");
        aggregator.start();

        String[] args = {"-D", "reconcile.splits=2", "-D", "reconcile.reducers=2", "-D", "reconcile.poll.ms=200",
                "-D", "reconcile.bulk.min.cells=" + threshold,
                "--from", PREV.toString(), "--to", D.toString(), "--namespace", layout.namespace(), "--cube", cubeFile.toString()};
        RunResult run;
        try {
            run = runJobJar(conf, args);
        } finally {
            stop.set(true);
            aggregator.join();
        }
        System.out.println(run.out);
        assertEquals(0, run.exitCode, run.out);

        // One progress line per day, oldest first, then the summary.
        List<String> lines = run.out.lines().toList();
        int first = indexOf(lines, PREV + "  1/2  reconciled");
        int second = indexOf(lines, D + "  2/2  reconciled");
        assertTrue(first >= 0 && second > first, run.out);
        assertTrue(run.out.contains("all 2 days done"), run.out);

        ObjectMapper json = new ObjectMapper();
        for (LocalDate day : List.of(PREV, D)) {
            assertEquals(exact.get(day), longs(live.cellsOfDay(day)), "every counter cell of " + day + " equals the recount");
            DayState state = meta.day(day);
            assertEquals(DayStatus.RECONCILED, state.status());
            JsonNode report = json.readTree(state.driftJson());
            JsonNode totals = report.get("totals");
            long[] d = drift.get(day);
            assertEquals(day.toString(), report.get("day").asText());
            assertEquals("reconciled", report.get("status").asText());
            assertEquals(all.stream().filter(e -> e.day().equals(day)).count(), totals.get("eventsRead").asLong());
            assertEquals(d[0], totals.get("cellsChecked").asLong(), "cells checked of " + day);
            assertEquals(d[1], totals.get("cellsCorrected").asLong(), "cells corrected of " + day);
            assertEquals(d[2], totals.get("cellsDeleted").asLong(), "cells deleted of " + day);
            assertEquals(d[3], totals.get("absoluteDrift").asLong(), "absolute drift of " + day);
            assertTrue(d[1] > 0, "the run had something to correct on " + day);
            assertEquals(day.equals(D) ? bulkOnD : 0, totals.get("cellsBulkLoaded").asLong(), "cells bulk-loaded on " + day);
            assertEquals(0, report.get("unacknowledged").size(), "the live aggregator acknowledged the close of " + day);
            String line = lines.get(day.equals(PREV) ? first : second);
            assertTrue(line.contains("corrected " + d[1] + ", absolute drift " + d[3]), line);
        }
    }

    // --- the job jar, as `hadoop jar` runs it ------------------------------------------------------

    private record RunResult(int exitCode, String out) {
    }

    /** Loads the job jar like RunJar and runs its main class's Tool through ToolRunner. */
    private static RunResult runJobJar(Configuration conf, String[] args) throws Exception {
        String property = System.getProperty("adreport.job.jar");
        Path jar = property == null ? null : Path.of(property);
        assertTrue(jar != null && Files.isRegularFile(jar), "the job jar " + jar + " is built by reconcile-job's package"
                + " phase; run this test with `mvn verify` (it runs in the integration-test phase)");
        String mainClass;
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            mainClass = j.getManifest().getMainAttributes().getValue("Main-Class");
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, JobJarOnYarnTest.class.getClassLoader())) {
            Thread.currentThread().setContextClassLoader(loader);
            conf.setClassLoader(loader);
            Tool tool = (Tool) loader.loadClass(mainClass).getDeclaredConstructor().newInstance();
            assertTrue(tool.getClass().getClassLoader() == loader, "the tool comes from the job jar");
            assertNotSame(JobJarOnYarnTest.class.getClassLoader(), tool.getClass().getClassLoader());
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            int rc = ToolRunner.run(conf, tool, args);
            return new RunResult(rc, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    // --- data ---------------------------------------------------------------------------------------

    /** Healthy traffic of {@code day}, counted live, then some events whose increments were lost. */
    private void traffic(LivePath live, LocalDate day, int lost) {
        List<Ev> imps = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Ev e = impression(day + "-imp-" + i, at(day));
            imps.add(e);
            live.ingest(e, e.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 60; i++) {
            Ev c = new Ev("click", day + "-click-" + i, at(day), Map.of(), 0, 0, imps.get(rnd.nextInt(imps.size())).id());
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 15; i++) {
            Ev c = new Ev("conversion", day + "-conv-" + i, at(day), Map.of(), 0, 1000 + rnd.nextInt(5000),
                    imps.get(rnd.nextInt(imps.size())).id());
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        for (int i = 0; i < 3; i++) {
            Ev c = new Ev("click", day + "-orphan-" + i, at(day), Map.of(), 0, 0, day + "-imp-missing-" + i);
            live.ingest(c, c.ts().plusSeconds(1), true);
        }
        live.flush();
        for (int i = 0; i < lost; i++) { // stored, never counted: the flusher died
            Ev e = impression(day + "-lost-" + i, at(day));
            live.ingest(e, e.ts().plusSeconds(1), false);
        }
        live.flush();
        live.increment(live.cellsNow(imps.get(0)), 1); // a replayed flush counted twice
    }

    /** Cells deleted, overwritten, corrupted and invented on {@code day}. */
    private void damage(LivePath live, RowKeyCodec keys, Cube cube, LocalDate day) {
        long dayStart = day.toEpochDay() * 1440;
        byte[] networkDay = keys.counterKey(cube.rollup("network").orElseThrow(), Granularity.DAY, dayStart, List.of());
        live.deleteCell("network", networkDay, "impressions");
        live.putCell("network", networkDay, "clicks", Bytes.toBytes(987_654L));
        live.putCell("advertiser", keys.counterKey(cube.rollup("advertiser").orElseThrow(), Granularity.DAY, dayStart,
                List.of("a1")), "spendMicros", Bytes.toBytes(3)); // 4 bytes: not a counter
        live.putCell("campaign", keys.counterKey(cube.rollup("campaign").orElseThrow(), Granularity.MINUTES_15, dayStart + 300,
                List.of("a9", "ghost")), "impressions", Bytes.toBytes(5L));
    }

    private Instant at(LocalDate day) {
        return day.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(rnd.nextInt(23 * 3600)).plusMillis(rnd.nextInt(1000));
    }

    private Ev impression(String id, Instant ts) {
        Map<String, String> dims = new HashMap<>();
        dims.put("advertiser", "a" + rnd.nextInt(3));
        dims.put("campaign", "c" + rnd.nextInt(4));
        dims.put("creative", "cr" + rnd.nextInt(2));
        dims.put("publisher", "p" + rnd.nextInt(3));
        dims.put("zone", "z" + rnd.nextInt(2));
        dims.put("country", List.of("US", "DE", "FR").get(rnd.nextInt(3)));
        dims.put("deviceType", rnd.nextBoolean() ? "mobile" : "desktop");
        return new Ev("impression", id, ts, dims, 100 + rnd.nextInt(2000), 0, null);
    }

    private static Set<ServerName> serversHolding(TableLayout layout) throws Exception {
        Set<ServerName> servers = new HashSet<>();
        List<TableName> tables = new ArrayList<>();
        tables.add(layout.rawTable());
        Recount.ROLLUPS.keySet().forEach(r -> tables.add(layout.counterTable(r)));
        for (TableName t : tables) {
            try (RegionLocator locator = connection.getRegionLocator(t)) {
                for (HRegionLocation l : locator.getAllRegionLocations()) {
                    servers.add(l.getServerName());
                }
            }
        }
        return servers;
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }

    private static Map<Cell, Long> longs(Map<Cell, byte[]> cells) {
        Map<Cell, Long> out = new HashMap<>();
        cells.forEach((c, v) -> out.put(c, v.length == 8 ? Bytes.toLong(v) : -1L));
        return out;
    }

    /**
     * {checked, corrected, deleted, absolute drift, corrected in salt buckets s % 2 == 0, == 1 (the
     * two reduce tasks' shares)} over the day's cells, from the cells as stored.
     */
    private static long[] expectedDrift(Map<Cell, Long> exact, Map<Cell, byte[]> stored) {
        long[] f = new long[6];
        Set<Cell> all = new HashSet<>(exact.keySet());
        all.addAll(stored.keySet());
        for (Cell c : all) {
            long e = exact.getOrDefault(c, 0L);
            byte[] s = stored.get(c);
            boolean valid = s != null && s.length == 8;
            long sv = valid ? Bytes.toLong(s) : 0;
            f[0]++;
            if (e == 0 ? s != null : !valid || sv != e) {
                f[1]++;
                f[2] += e == 0 ? 1 : 0;
                f[3] += Math.abs(e - sv);
                f[4 + Integer.parseInt(c.rowHex().substring(0, 2), 16) % 2]++;
            }
        }
        return f;
    }
}
