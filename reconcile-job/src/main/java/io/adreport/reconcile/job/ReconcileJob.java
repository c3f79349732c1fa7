package io.adreport.reconcile.job;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.MultiTableOutputFormat;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;

/**
 * Builds, runs and reads the reconcile MapReduce job for one UTC day.
 *
 * <p>Shape: {@link DayInputFormat} (D's raw rows, nothing else) → {@link RecountMapper} (events →
 * expected deltas through {@code CounterFanout}, summed per cell in memory; one record per counter
 * row, {@link RowKeys} → {@link RowCells}) → {@link CellCombiner}
 * → {@link CellPartitioner} (by counter salt bucket) → {@link CellReducer} (merges the sorted
 * expected rows with the stored rows of its buckets, read in the same order by
 * {@link StoredCells}; Put or Delete of the cells that differ; with {@link #writingIndex}, also the
 * day's ranked index entries of each DAY row, written in batches by {@link DayIndexRows}) →
 * {@code MultiTableOutputFormat} (the corrections), or no output in a dry run. A reduce task with many corrections writes them as HFiles instead and bulk-loads them
 * ({@link BulkCorrections}, staged under {@link JobSettings#BULK_DIR}, removed after the job).
 * Corrections are absolute values, so a retried reduce attempt writes the same values again:
 * task retries cannot double-count, unlike increments.
 *
 * <p>Where it runs: with {@code mapreduce.framework.name=local} (the default when no cluster is
 * configured) the local job runner runs the tasks in this JVM, with its working files in a
 * temporary directory (under {@code reconcile.tmp.dir} when set) that is deleted afterwards;
 * with {@code yarn} the job and its dependency jars are shipped to the cluster.
 */
public final class ReconcileJob {
    /**
     * Between two reads of the job's status: in the local job runner a read is an in-memory copy,
     * so a short interval costs nothing and cuts the wait after the last task (up to one interval
     * on every job, a share of an empty day's fixed cost); on a cluster each read is an RPC to the
     * application master.
     */
    private static final long LOCAL_POLL_MS = 50;
    private static final long CLUSTER_POLL_MS = 250;

    private ReconcileJob() {
    }

    /**
     * The job, configured and not submitted. {@code conf} is copied; the {@link ReconcileConfig}
     * settings it holds are checked and the missing ones written with their defaults, so that
     * every task reads the same values.
     */
    public static Job create(Configuration conf, TableLayout layout, LocalDate day, boolean dryRun) throws IOException {
        Configuration c = new Configuration(conf);
        ReconcileConfig config = ReconcileConfig.from(c);
        JobSettings.write(c, layout, day, dryRun, config);
        if (c.get(JobSettings.BULK_DIR) == null) {
            c.set(JobSettings.BULK_DIR, io.adreport.schema.hbase.BulkStaging.fresh(c, "adreport-reconcile-" + day).toString());
        }
        c.setBoolean("mapreduce.map.speculative", false);
        c.setBoolean("mapreduce.reduce.speculative", false);
        c.setInt("mapreduce.job.counters.max", Math.max(c.getInt("mapreduce.job.counters.max", 120), 500));
        Job job = Job.getInstance(c, "adreport reconcile " + layout.namespace() + " " + day + (dryRun ? " (dry run)" : ""));
        job.setJarByClass(ReconcileJob.class);
        job.setInputFormatClass(DayInputFormat.class);
        job.setMapperClass(RecountMapper.class);
        job.setMapOutputKeyClass(ImmutableBytesWritable.class);
        job.setMapOutputValueClass(RowCells.class);
        if (c.getBoolean(JobSettings.COMBINER, true)) {
            job.setCombinerClass(CellCombiner.class);
        }
        job.setPartitionerClass(CellPartitioner.class);
        job.setReducerClass(CellReducer.class);
        job.setNumReduceTasks(config.reducers());
        if (dryRun) {
            job.setOutputFormatClass(NullOutputFormat.class);
        } else {
            job.setOutputFormatClass(MultiTableOutputFormat.class);
        }
        job.setOutputKeyClass(ImmutableBytesWritable.class);
        if (!isLocal(c)) {
            // On a secure cluster the tasks authenticate to HBase with a token obtained here (no-op otherwise).
            TableMapReduceUtil.initCredentials(job);
            TableMapReduceUtil.addDependencyJars(job);
            // The tasks read the cube with CubeLoader, which needs Jackson's YAML reader and SnakeYAML.
            TableMapReduceUtil.addDependencyJarsForClasses(job.getConfiguration(), Cube.class, ObjectMapper.class,
                    JsonParser.class, JsonInclude.class, YAMLFactory.class, org.yaml.snakeyaml.Yaml.class, DriftReport.class,
                    org.apache.hadoop.hbase.regionserver.StoreFileWriter.class, org.apache.hadoop.hbase.tool.BulkLoadHFiles.class);
        }
        return job;
    }

    /**
     * Runs the job to completion and returns its drift report; {@code progress}, when not null,
     * gets one line per change of the map/reduce percentages. Throws when the job fails.
     */
    public static DriftReport run(Configuration conf, TableLayout layout, LocalDate day, boolean dryRun,
                                  Clock clock, PrintStream progress) throws IOException, InterruptedException {
        return run(conf, null, layout, day, dryRun, clock, progress);
    }

    /**
     * As {@link #run(Configuration, TableLayout, LocalDate, boolean, Clock, PrintStream)}; in the
     * local job runner the tasks borrow {@code connection} (this process's connection to the same
     * cluster, or null: each task opens its own) instead of opening one each ({@link TaskConnections}).
     */
    public static DriftReport run(Configuration conf, org.apache.hadoop.hbase.client.Connection connection, TableLayout layout,
                                  LocalDate day, boolean dryRun, Clock clock, PrintStream progress)
            throws IOException, InterruptedException {
        return run(conf, connection, layout, day, dryRun, clock, progress, counters -> { });
    }

    /**
     * As above; {@code counters} also gets the job's counters once it succeeded (what the map
     * tasks' view repair did is there, {@link ReconcileCounter}).
     */
    public static DriftReport run(Configuration conf, org.apache.hadoop.hbase.client.Connection connection, TableLayout layout,
                                  LocalDate day, boolean dryRun, Clock clock, PrintStream progress,
                                  Consumer<org.apache.hadoop.mapreduce.Counters> counters)
            throws IOException, InterruptedException {
        Configuration c = new Configuration(conf);
        Path work = null;
        TaskConnections.Registration lent = () -> { };
        if (isLocal(c)) {
            lent = TaskConnections.share(c, connection);
            String base = ReconcileConfig.from(c).tmpDir();
            work = base.isEmpty() ? Files.createTempDirectory("adreport-reconcile")
                    : Files.createTempDirectory(Files.createDirectories(Path.of(base)), "adreport-reconcile");
            localRunner(c, work);
            c.set(JobSettings.BULK_DIR, work.resolve("bulk").toUri().toString());
        }
        Job job = null;
        try {
            Instant started = clock.instant();
            job = create(c, layout, day, dryRun);
            try {
                job.submit();
            } catch (ClassNotFoundException e) {
                throw new IOException("cannot submit the reconcile job: " + e.getMessage(), e);
            }
            String last = "";
            long poll = work != null ? LOCAL_POLL_MS : CLUSTER_POLL_MS;
            while (!job.isComplete()) {
                last = report(progress, job, last, clock, started);
                Thread.sleep(poll);
            }
            report(progress, job, last, clock, started);
            if (!job.isSuccessful()) {
                throw new IOException("reconcile job for " + day + " failed: " + job.getStatus().getFailureInfo());
            }
            Instant finished = clock.instant();
            org.apache.hadoop.mapreduce.Counters all = job.getCounters();
            counters.accept(all);
            return report(layout.cube(), day, dryRun, started, finished, all);
        } finally {
            lent.close();
            if (work != null) {
                deleteRecursively(work);
            } else if (job != null) {
                org.apache.hadoop.fs.Path bulk = new org.apache.hadoop.fs.Path(job.getConfiguration().get(JobSettings.BULK_DIR));
                try {
                    bulk.getFileSystem(job.getConfiguration()).delete(bulk, true);
                } catch (IOException e) {
                    LOG_CLEANUP.warn("cannot delete the job's bulk-load staging directory {}: {}", bulk, e.toString());
                }
            }
        }
    }

    /**
     * {@code conf}, copied, for a job whose reduce tasks also write the day's ranked index entries
     * of {@code generations} (rollup name to generation, {@link DayIndexRows}); the caller
     * publishes them once the job succeeded. A dry run writes none.
     */
    public static Configuration writingIndex(Configuration conf, Map<String, Long> generations) {
        Configuration c = new Configuration(conf);
        c.set(DayIndexRows.GENERATIONS, DayIndexRows.encode(generations));
        return c;
    }

    /**
     * {@code conf}, copied, for a job whose reduce tasks compute the content digests of the day's
     * ranked lists of {@code generations} without writing any entry ({@link DayIndexRows}).
     */
    public static Configuration digestingIndex(Configuration conf, Map<String, Long> generations) {
        Configuration c = writingIndex(conf, generations);
        c.setBoolean(DayIndexRows.DIGEST_ONLY, true);
        return c;
    }

    /** The content digest of each indexed rollup's lists the job's reduce tasks built, by rollup name. */
    public static Map<String, Long> indexDigests(org.apache.hadoop.mapreduce.Counters all, java.util.Collection<String> rollups) {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (String r : rollups) {
            org.apache.hadoop.mapreduce.Counter c = all.getGroup(DayIndexRows.DIGEST_GROUP).findCounter(r, false);
            out.put(r, c == null ? 0L : c.getValue());
        }
        return out;
    }

    /** Index entries the reduce tasks wrote, and how many of them as bulk-loaded HFiles. */
    public static String indexEntries(org.apache.hadoop.mapreduce.Counters all) {
        long entries = all.findCounter(ReconcileCounter.INDEX_ENTRIES).getValue();
        long bulk = all.findCounter(ReconcileCounter.INDEX_ENTRIES_BULK_LOADED).getValue();
        return entries + " entries" + (bulk > 0 ? ", " + bulk + " of them bulk-loaded" : "");
    }

    /** What the reduce tasks read and wrote of the counter tables besides the drift report's figures. */
    public static String counterCells(org.apache.hadoop.mapreduce.Counters all) {
        return String.format("%,d rows read; %,d right values folded out of more than %d writer cells (%,d writer cells deleted); "
                        + "%,d corrections bulk-loaded (%,d HFiles)",
                all.findCounter(ReconcileCounter.COUNTER_ROWS_READ).getValue(), all.findCounter(ReconcileCounter.CELLS_FOLDED).getValue(),
                CellReducer.MAX_WRITER_CELLS, all.findCounter(ReconcileCounter.WRITER_CELLS_FOLDED).getValue(),
                all.findCounter(ReconcileCounter.CELLS_BULK_LOADED).getValue(),
                all.findCounter(ReconcileCounter.HFILES_LOADED).getValue());
    }

    static boolean isLocal(Configuration conf) {
        return "local".equals(conf.get("mapreduce.framework.name", "local"));
    }

    /** Local job runner settings: files under {@code work}, small sort buffers, two map and two reduce threads. */
    static void localRunner(Configuration c, Path work) {
        c.set("mapreduce.framework.name", "local");
        c.set("hadoop.tmp.dir", work.resolve("tmp").toString());
        c.set("mapreduce.cluster.local.dir", work.resolve("local").toString());
        c.set("mapreduce.jobtracker.staging.root.dir", work.resolve("staging").toString());
        unlessChosen(c, "mapreduce.task.io.sort.mb", "32");
        unlessChosen(c, "mapreduce.local.map.tasks.maximum", "2");
        unlessChosen(c, "mapreduce.local.reduce.tasks.maximum", "2"); // reduce tasks read their stored cells in parallel
        c.set("fs.defaultFS", "file:///");
    }

    /**
     * Sets {@code key} unless a caller chose it. Not {@code setIfUnset}: once any job has run in
     * the JVM, Hadoop's {@code mapred-default.xml} is a default resource of every configuration,
     * and its values (a 100 MB sort buffer per map thread) count as set.
     */
    static void unlessChosen(Configuration c, String key, String value) {
        String[] sources = c.getPropertySources(key);
        if (sources == null || Arrays.stream(sources).allMatch(s -> s.endsWith("-default.xml"))) {
            c.set(key, value);
        }
    }

    /** Prints the job's progress when it changed, with the seconds since it was submitted (where the map side ends). */
    private static String report(PrintStream out, Job job, String last, Clock clock, Instant started) throws IOException {
        if (out == null) {
            return last;
        }
        String now = String.format("map %3d%%  reduce %3d%%", Math.round(job.mapProgress() * 100), Math.round(job.reduceProgress() * 100));
        if (!now.equals(last)) {
            out.printf("%s  %6.1f s%n", now, Duration.between(started, clock.instant()).toMillis() / 1000.0);
            out.flush();
        }
        return now;
    }

    /** The drift report of a finished job, from its counters. */
    static DriftReport report(Cube cube, LocalDate day, boolean dryRun, Instant started, Instant finished,
                              org.apache.hadoop.mapreduce.Counters counters) {
        Map<String, DriftReport.RollupDrift> rollups = new LinkedHashMap<>();
        long max = 0;
        for (Rollup r : cube.rollups()) {
            CounterGroup g = counters.getGroup(Counters.rollupGroup(r.name()));
            long rollupMax = 0;
            for (Counter counter : g) {
                if (counter.getName().startsWith(Counters.MAX_CELL_DRIFT)) {
                    rollupMax = Math.max(rollupMax, counter.getValue());
                }
            }
            max = Math.max(max, rollupMax);
            rollups.put(r.name(), new DriftReport.RollupDrift(value(g, Counters.EVENTS), value(g, Counters.CELLS_CHECKED),
                    value(g, Counters.CELLS_CORRECTED), value(g, Counters.CELLS_DELETED), value(g, Counters.ABSOLUTE_DRIFT), rollupMax));
        }
        DriftReport.Totals totals = new DriftReport.Totals(
                counters.findCounter(ReconcileCounter.EVENTS_READ).getValue(),
                counters.findCounter(ReconcileCounter.DUPLICATES).getValue(),
                counters.findCounter(ReconcileCounter.LATE_EVENTS).getValue(),
                counters.findCounter(ReconcileCounter.UNATTRIBUTED).getValue(),
                counters.findCounter(ReconcileCounter.MALFORMED).getValue(),
                counters.findCounter(ReconcileCounter.CELLS_CHECKED).getValue(),
                counters.findCounter(ReconcileCounter.CELLS_CORRECTED).getValue(),
                counters.findCounter(ReconcileCounter.CELLS_DELETED).getValue(),
                counters.findCounter(ReconcileCounter.CELLS_BULK_LOADED).getValue(),
                counters.findCounter(ReconcileCounter.ABSOLUTE_DRIFT).getValue(),
                max);
        return new DriftReport(day, dryRun ? DriftReport.DRY_RUN : DriftReport.RECONCILED, started, finished,
                Duration.between(started, finished).toMillis(), dryRun, totals, rollups, List.of());
    }

    private static long value(CounterGroup g, String name) {
        Counter c = g.findCounter(name, false);
        return c == null ? 0 : c.getValue();
    }

    /**
     * Best effort: the local job runner deletes parts of its staging directory on its own thread
     * after the job completes, so files may vanish under the walk; a leftover temp directory must
     * never fail a finished job.
     */
    private static void deleteRecursively(Path dir) {
        for (int attempt = 0; attempt < 3 && Files.exists(dir); attempt++) {
            try {
                Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
                    @Override
                    public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs)
                            throws IOException {
                        Files.deleteIfExists(file);
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    @Override
                    public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                        if (e instanceof java.nio.file.NoSuchFileException) {
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }
                        throw e;
                    }

                    @Override
                    public java.nio.file.FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                        Files.deleteIfExists(d);
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }
                });
            } catch (java.nio.file.NoSuchFileException | java.nio.file.DirectoryNotEmptyException e) {
                // raced with the job runner's own cleanup: walk again
            } catch (IOException e) {
                LOG_CLEANUP.warn("cannot delete the job's working directory {}: {}", dir, e.toString());
                return;
            }
        }
    }

    private static final org.slf4j.Logger LOG_CLEANUP = org.slf4j.LoggerFactory.getLogger(ReconcileJob.class);
}
