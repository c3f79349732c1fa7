package io.adreport.reconcile.job;

import io.adreport.reconcile.ReconcileConfig;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.CubeSource;
import io.adreport.schema.table.TableLayout;
import java.time.LocalDate;
import org.apache.hadoop.conf.Configuration;

/**
 * What a task knows about its job, read once from the job configuration so that the same job
 * runs in the local job runner and on YARN, where tasks cannot see the submitter's files.
 *
 * <p>The cube travels as its own source text (the cube file as written, or the built-in ads
 * cube's resource) and each task reads it again with {@link CubeLoader}: one serialized form,
 * validated on both sides. The tuning settings are {@link ReconcileConfig}'s, written by
 * {@link ReconcileConfig#applyTo} at submission; their names, defaults and rules live only
 * there. Every value is required: a missing one fails the task with an error that names it,
 * never a silent default that might differ from the submitter's.
 *
 * @param layout         the cube and namespace
 * @param day            the UTC day recounted
 * @param dryRun         whether corrections are only counted, not written
 * @param splits         input splits ({@link ReconcileConfig#SPLITS})
 * @param joinBatch      join events per batch of Gets ({@link ReconcileConfig#JOIN_BATCH})
 * @param mapBufferCells cells a map task sums before spilling ({@link ReconcileConfig#MAP_BUFFER_CELLS})
 * @param bulkMinCells   a reduce task's corrections from which it bulk-loads them ({@link ReconcileConfig#BULK_MIN_CELLS})
 * @param indexBulkMinEntries a reduce task's index entries from which it bulk-loads them
 *                       ({@link ReconcileConfig#INDEX_BULK_MIN_ENTRIES})
 */
record JobSettings(TableLayout layout, LocalDate day, boolean dryRun, int splits, int joinBatch, int mapBufferCells,
                   int bulkMinCells, int indexBulkMinEntries) {
    static final String DAY = "adreport.reconcile.day";
    static final String NAMESPACE = "adreport.reconcile.namespace";
    static final String CUBE_TEXT = "adreport.reconcile.cube";
    static final String CUBE_NAME = "adreport.reconcile.cube.name";
    static final String DRY_RUN = "adreport.reconcile.dry.run";
    /** Directory (on the job's file system) under which reduce tasks stage the HFiles they bulk-load. */
    static final String BULK_DIR = "adreport.reconcile.bulk.dir";
    /**
     * Whether the map side runs {@link CellCombiner} (default true). Not an operator setting: a
     * switch for the benchmark's lever runs, read at submission only.
     */
    static final String COMBINER = "adreport.reconcile.combiner";

    /** Writes everything {@link #from} reads; the cube must have been read from text. */
    static void write(Configuration conf, TableLayout layout, LocalDate day, boolean dryRun, ReconcileConfig config) {
        CubeSource source = layout.cube().source();
        if (source == null) {
            throw new IllegalArgumentException("cube '" + layout.cube().name() + "' was built in code, not read by"
                    + " CubeLoader: the job's tasks read the cube from its source text, which this cube has none of");
        }
        conf.set(DAY, day.toString());
        conf.set(NAMESPACE, layout.namespace());
        conf.set(CUBE_NAME, source.name());
        conf.set(CUBE_TEXT, source.text());
        conf.setBoolean(DRY_RUN, dryRun);
        config.applyTo(conf);
    }

    /**
     * The job as a task sees it; throws, naming the setting, when one is missing or invalid.
     * The values are checked by {@link ReconcileConfig}'s rules, as they were at submission.
     */
    static JobSettings from(Configuration conf) {
        Cube cube = new CubeSource(required(conf, CUBE_NAME), required(conf, CUBE_TEXT)).parse();
        ReconcileConfig.TASK_SETTINGS.forEach(name -> required(conf, name));
        ReconcileConfig config = ReconcileConfig.from(conf);
        return new JobSettings(new TableLayout(cube, required(conf, NAMESPACE)), LocalDate.parse(required(conf, DAY)),
                Boolean.parseBoolean(required(conf, DRY_RUN)), config.splits(), config.joinBatch(), config.mapBufferCells(),
                config.bulkMinCells(), config.indexBulkMinEntries());
    }

    /** Raw: the cube text must arrive exactly as written, without Hadoop's ${...} expansion. */
    private static String required(Configuration conf, String name) {
        String v = conf.getRaw(name);
        if (v == null) {
            throw new IllegalStateException(name + ": missing from the job configuration"
                    + " (the job that runs this task must be created by ReconcileJob.create, which writes it)");
        }
        return v;
    }
}
