package io.adreport.reconcile;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import java.time.Duration;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Settings of the reconcile job, its day-close protocol and its nightly schedule, validated by
 * {@link #DEF}, the only owner of their rules.
 *
 * @param enabled        whether the local stack schedules the nightly run
 * @param time           UTC time of day of the nightly run
 * @param lookbackDays   days before yesterday recounted again each night, for late events
 * @param grace          longest wait for live aggregators to acknowledge a day's close
 * @param liveness       an aggregator whose last heartbeat is older than this is not waited for
 * @param poll           interval between two reads of the acknowledgements
 * @param splits         map tasks (input splits) per job
 * @param reducers       reduce tasks per job
 * @param joinBatch      join events looked up per batch of Gets
 * @param mapBufferCells distinct cells a map task sums in memory before spilling
 * @param bulkMinCells   corrections of one reduce task from which they are bulk-loaded as HFiles
 *                       instead of written as Puts/Deletes (0 = always, -1 = never)
 * @param indexBulkMinEntries ranked index entries of one reduce task from which they are written
 *                       as HFiles and bulk-loaded instead of Put, and superseded entries of one
 *                       sweep from which they are deleted by bulk-loaded markers (0 = always, -1 = never)
 * @param tmpDir         base directory of the local job runner's files ("" = system temp dir)
 * @param rewriteViews   write every day's device views again ({@code always}), not only a day
 *                       that may miss one ({@code gaps}, {@code ViewRewrite})
 */
public record ReconcileConfig(boolean enabled, LocalTime time, int lookbackDays, Duration grace, Duration liveness,
                              Duration poll, int splits, int reducers, int joinBatch, int mapBufferCells, int bulkMinCells,
                              int indexBulkMinEntries, String tmpDir, boolean rewriteViews) {

    public static final String ENABLED = "reconcile.enabled";
    public static final String TIME = "reconcile.time";
    public static final String LOOKBACK_DAYS = "reconcile.lookback.days";
    public static final String GRACE_MS = "reconcile.grace.ms";
    public static final String LIVENESS_MS = "reconcile.aggregator.liveness.ms";
    public static final String POLL_MS = "reconcile.poll.ms";
    /** Input splits; each holds every key range of the salt buckets {@code s % splits == i}. */
    public static final String SPLITS = "reconcile.splits";
    /** Reduce tasks (the output is partitioned by cell). */
    public static final String REDUCERS = "reconcile.reducers";
    public static final String JOIN_BATCH = "reconcile.join.batch";
    public static final String MAP_BUFFER_CELLS = "reconcile.map.buffer.cells";
    /** Corrections per reduce task from which they are bulk-loaded; 0 = always, -1 = never. */
    public static final String BULK_MIN_CELLS = "reconcile.bulk.min.cells";
    /** Ranked index entries per reduce task from which they are bulk-loaded; 0 = always, -1 = never. */
    public static final String INDEX_BULK_MIN_ENTRIES = "reconcile.index.bulk.min.entries";
    public static final String TMP_DIR = "reconcile.tmp.dir";
    public static final String VIEWS_REWRITE = "reconcile.views.rewrite";

    /**
     * The settings the job's input format and tasks read back from the job configuration, where
     * {@link #applyTo} wrote them at submission; the others are used by the submitter only.
     */
    public static final List<String> TASK_SETTINGS = List.of(SPLITS, JOIN_BATCH, MAP_BUFFER_CELLS, BULK_MIN_CELLS, INDEX_BULK_MIN_ENTRIES);

    public static final ConfigDef DEF = new ConfigDef("Reconcile")
            .define(ENABLED, Type.BOOLEAN, "true", "Schedule the nightly reconcile in the local stack")
            .define(TIME, Type.TIME, "03:00", "HH:MM", v -> true,
                    "UTC time of day of the nightly reconcile (yesterday plus the look-back days)")
            .define(LOOKBACK_DAYS, Type.INT, "3", ConfigDef.between(0, 30),
                    "Days before yesterday that each nightly run looks back over: a day there is recounted when it was never reconciled (catch-up after downtime, oldest first) or received late events since its reconciliation")
            .define(GRACE_MS, Type.DURATION_MS, "120000", ConfigDef.between(0, 3_600_000),
                    "Longest wait for live aggregators to acknowledge a day's close before the job runs anyway (the report lists the silent ones)")
            .define(LIVENESS_MS, Type.DURATION_MS, "30000", ConfigDef.between(1000, 3_600_000),
                    "An aggregator whose last heartbeat is older than this is considered stopped and is not waited for")
            .define(POLL_MS, Type.DURATION_MS, "500", ConfigDef.between(10, 60_000),
                    "Interval between two reads of the aggregators' acknowledgements during a day close")
            .define(SPLITS, Type.INT, "2", ConfigDef.between(1, 256),
                    "Map tasks per job; the default matches the local job runner's two map threads (one wave); on a cluster, set it to the salt bucket count")
            .define(REDUCERS, Type.INT, "2", ConfigDef.between(1, 256),
                    "Reduce tasks per job; each reads the stored counters of its own salt buckets (salt % reducers)")
            .define(JOIN_BATCH, Type.INT, "1000", ConfigDef.between(1, 100_000),
                    "Clicks and conversions whose impressions are looked up in one batch of Gets")
            .define(MAP_BUFFER_CELLS, Type.INT, "4000000", ConfigDef.between(1000, 10_000_000),
                    "Distinct counter cells a map task sums in memory before it spills them to the shuffle")
            .define(BULK_MIN_CELLS, Type.INT, "500000", ConfigDef.between(-1, 1_000_000),
                    "Corrections of one reduce task from which they are written as HFiles and bulk-loaded (off the live write path) instead of Puts/Deletes; a task holds up to this many in memory (~100 bytes each) while it decides. 0 = always bulk load, -1 = never")
            .define(INDEX_BULK_MIN_ENTRIES, Type.INT, "100000", ConfigDef.between(-1, 1_000_000),
                    "Ranked top-N index entries of one reduce task from which it writes them as HFiles, sorted in runs of this many, and bulk-loads them (no MemStore, no WAL) instead of Puts; a task holds up to this many in memory (~150 bytes each). The same number of superseded entries deleted at once are deleted by bulk-loaded markers instead of Deletes. 0 = always bulk load, -1 = never")
            .define(TMP_DIR, Type.PATH, "", "Base directory of the local job runner's working files; empty means the system temp directory")
            .define(VIEWS_REWRITE, Type.STRING, "gaps", ConfigDef.oneOf("gaps", "always"),
                    "When the nightly pass writes a day's device views (frequency-cap history) again from its raw impressions: gaps = only when the day may miss one (a view write failed for an event of the day, or an aggregator stopped without retiring since the day before it); always = every pass (what restores views lost any other way, e.g. a restored profiles table). Either way the pass trims each device's history to its bound");

    public static ReconcileConfig from(ConfigDef.Values v) {
        return new ReconcileConfig(v.bool(ENABLED), v.time(TIME), v.integer(LOOKBACK_DAYS),
                v.millis(GRACE_MS), v.millis(LIVENESS_MS), v.millis(POLL_MS),
                v.integer(SPLITS), v.integer(REDUCERS), v.integer(JOIN_BATCH),
                v.integer(MAP_BUFFER_CELLS), v.integer(BULK_MIN_CELLS), v.integer(INDEX_BULK_MIN_ENTRIES), v.string(TMP_DIR), "always".equals(v.string(VIEWS_REWRITE)));
    }

    /** Defaults, overridden by {@code overrides} (setting name → value). */
    public static ReconcileConfig of(Map<String, String> overrides) {
        return from(DEF.withOverrides(overrides));
    }

    /** Settings given as Hadoop properties ({@code -D reconcile.grace.ms=...} of {@code hadoop jar}). */
    public static ReconcileConfig from(Configuration conf) {
        return of(DEF.given(conf::get));
    }

    /** Writes the job's settings (those of its submitter and {@link #TASK_SETTINGS}) into a Hadoop configuration. */
    public void applyTo(Configuration conf) {
        conf.setInt(SPLITS, splits);
        conf.setInt(REDUCERS, reducers);
        conf.setInt(JOIN_BATCH, joinBatch);
        conf.setInt(MAP_BUFFER_CELLS, mapBufferCells);
        conf.setInt(BULK_MIN_CELLS, bulkMinCells);
        conf.setInt(INDEX_BULK_MIN_ENTRIES, indexBulkMinEntries);
        conf.set(TMP_DIR, tmpDir);
    }
}
