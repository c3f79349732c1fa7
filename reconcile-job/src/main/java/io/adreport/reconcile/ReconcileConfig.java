package io.adreport.reconcile;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import java.time.Duration;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Settings of the reconcile job, its day-close protocol and its nightly schedule.
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
 * @param tmpDir         base directory of the local job runner's files ("" = system temp dir)
 */
public record ReconcileConfig(boolean enabled, LocalTime time, int lookbackDays, Duration grace, Duration liveness,
                              Duration poll, int splits, int reducers, int joinBatch, int mapBufferCells, String tmpDir) {

    public static final ConfigDef DEF = new ConfigDef("Reconcile")
            .define("reconcile.enabled", Type.BOOLEAN, "true", "Schedule the nightly reconcile in the local stack")
            .define("reconcile.time", Type.TIME, "03:00", "HH:MM", v -> true,
                    "UTC time of day of the nightly reconcile (yesterday plus the look-back days)")
            .define("reconcile.lookback.days", Type.INT, "3", "0..30", ConfigDef.between(0, 30),
                    "Days before yesterday that each nightly run looks back over: a day there is recounted when it was never reconciled (catch-up after downtime, oldest first) or received late events since its reconciliation")
            .define("reconcile.grace.ms", Type.DURATION_MS, "120000", "0..3600000", ConfigDef.between(0, 3_600_000),
                    "Longest wait for live aggregators to acknowledge a day's close before the job runs anyway (the report lists the silent ones)")
            .define("reconcile.aggregator.liveness.ms", Type.DURATION_MS, "30000", "1000..3600000", ConfigDef.between(1000, 3_600_000),
                    "An aggregator whose last heartbeat is older than this is considered stopped and is not waited for")
            .define("reconcile.poll.ms", Type.DURATION_MS, "500", "10..60000", ConfigDef.between(10, 60_000),
                    "Interval between two reads of the aggregators' acknowledgements during a day close")
            .define("reconcile.splits", Type.INT, "4", "1..256", ConfigDef.between(1, 256),
                    "Map tasks per job; on a cluster, set it to the salt bucket count")
            .define("reconcile.reducers", Type.INT, "1", "1..256", ConfigDef.between(1, 256), "Reduce tasks per job")
            .define("reconcile.join.batch", Type.INT, "1000", "1..100000", ConfigDef.between(1, 100_000),
                    "Clicks and conversions whose impressions are looked up in one batch of Gets")
            .define("reconcile.map.buffer.cells", Type.INT, "100000", "1000..10000000", ConfigDef.between(1000, 10_000_000),
                    "Distinct counter cells a map task sums in memory before it spills them to the shuffle")
            .define("reconcile.tmp.dir", Type.PATH, "", "Base directory of the local job runner's working files; empty means the system temp directory");

    public ReconcileConfig {
        if (lookbackDays < 0 || splits < 1 || reducers < 1 || joinBatch < 1 || mapBufferCells < 1) {
            throw new IllegalArgumentException("reconcile settings out of range");
        }
        if (grace.isNegative() || liveness.isNegative() || poll.isZero() || poll.isNegative()) {
            throw new IllegalArgumentException("reconcile durations must be positive");
        }
    }

    public static ReconcileConfig from(ConfigDef.Values v) {
        return new ReconcileConfig(v.bool("reconcile.enabled"), v.time("reconcile.time"), v.integer("reconcile.lookback.days"),
                v.millis("reconcile.grace.ms"), v.millis("reconcile.aggregator.liveness.ms"), v.millis("reconcile.poll.ms"),
                v.integer("reconcile.splits"), v.integer("reconcile.reducers"), v.integer("reconcile.join.batch"),
                v.integer("reconcile.map.buffer.cells"), v.string("reconcile.tmp.dir"));
    }

    /** Defaults, overridden by {@code overrides} (setting name → value). */
    public static ReconcileConfig of(Map<String, String> overrides) {
        return from(DEF.parse(Map.of(), Map.of(), overrides));
    }

    /** Settings given as Hadoop properties ({@code -D reconcile.grace.ms=...} of {@code hadoop jar}). */
    public static ReconcileConfig from(Configuration conf) {
        Map<String, String> given = new LinkedHashMap<>();
        for (ConfigDef.Setting s : DEF.settings()) {
            String v = conf.get(s.name());
            if (v != null) {
                given.put(s.name(), v);
            }
        }
        return of(given);
    }

    /** Writes the job tuning settings into a Hadoop configuration. */
    public void applyTo(Configuration conf) {
        conf.setInt("reconcile.splits", splits);
        conf.setInt("reconcile.reducers", reducers);
        conf.setInt("reconcile.join.batch", joinBatch);
        conf.setInt("reconcile.map.buffer.cells", mapBufferCells);
        conf.set("reconcile.tmp.dir", tmpDir);
    }
}
