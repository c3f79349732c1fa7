package io.adreport.reconcile;

import io.adreport.reconcile.job.ReconcileJob;
import io.adreport.reconcile.job.ReconcileOptions;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.time.Clock;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * The reconcile job as a Hadoop {@link Tool}, for a cluster (the job jar's main class):
 * <pre>
 * HADOOP_CLASSPATH=$(hbase mapredcp):$HBASE_CONF_DIR hadoop jar adreport-reconcile-job-*-job.jar \
 *     -D reconcile.splits=16 (--day 2026-11-28 | --from 2026-11-20 --to 2026-11-28) \
 *     [--dry-run] [--namespace NS] [--cube FILE]
 * </pre>
 * {@code hbase-site.xml} must be on the classpath (the tasks get its connection settings through
 * the job configuration). Settings of {@link ReconcileConfig} are given as {@code -D name=value}.
 * Each day runs the whole day-close protocol, then its job, then (cubes with device profiles) the
 * repair of the day's device view histories ({@link Reconciler#withViewRepair}), which needs the
 * device hash secret: {@code -D device.hash.secret=...} or {@code ADREPORT_DEVICE_HASH_SECRET}
 * (while it rotates also {@code -D device.hash.secret.previous=...} or
 * {@code ADREPORT_DEVICE_HASH_SECRET_PREVIOUS}: the pass then moves the day's devices to the new secret);
 * {@code -D profiles.placeholder.ids=...} as for the services. {@code --day} prints the job's
 * progress and the drift report, a range one line per day ({@link Reconciler#reconcile(
 * io.adreport.reconcile.job.DayRange, boolean, java.io.PrintStream)}). The reports are also stored
 * in the meta table, where the report API serves them. Exit codes: 0 done, 1 failed (a job, or
 * HBase), 2 bad options.
 */
public final class ReconcileTool extends Configured implements Tool {

    public static void main(String[] args) throws Exception {
        // HBaseConfiguration.create() sets HBase's own class loader on the configuration. Under
        // `hadoop jar` (RunJar) HBase comes from the cluster's classpath and this class from the
        // job jar's loader, so the job's classes (map output values, ...) would not be found.
        Configuration conf = HBaseConfiguration.create();
        conf.setClassLoader(ReconcileTool.class.getClassLoader());
        System.exit(ToolRunner.run(conf, new ReconcileTool(), args));
    }

    /** The job for {@code args} (one {@code --day}), configured and not submitted. */
    public static Job createSubmittableJob(Configuration conf, String[] args) throws IOException {
        ReconcileOptions o = ReconcileOptions.parse(args);
        if (!o.days().oneDay()) {
            throw new IllegalArgumentException("--from/--to: one job is one day; give --day");
        }
        return ReconcileJob.create(conf, layout(o), o.days().from(), o.dryRun());
    }

    static TableLayout layout(ReconcileOptions o) {
        Cube cube = o.cubeFile() == null ? CubeLoader.defaultCube() : CubeLoader.load(o.cubeFile());
        return new TableLayout(cube, o.namespace() == null ? cube.name() : o.namespace());
    }

    /** The reconciler the tool runs: the job, and the view repair for a cube with profiles. */
    static Reconciler reconciler(Configuration conf, Connection connection, TableLayout layout, ReconcileConfig config,
                                 Map<String, String> env) {
        String secret = conf.get("device.hash.secret", env.getOrDefault("ADREPORT_DEVICE_HASH_SECRET", ""));
        String previous = conf.get("device.hash.secret.previous", env.getOrDefault("ADREPORT_DEVICE_HASH_SECRET_PREVIOUS", ""));
        DeviceHashes hasher = secret.isEmpty() ? null : DeviceHashes.of(secret.getBytes(StandardCharsets.UTF_8),
                previous.isEmpty() ? null : previous.getBytes(StandardCharsets.UTF_8));
        Map<String, String> profileSettings = ProfileConfig.DEF.given(conf::get);
        return Reconciler.withViewRepair(new Reconciler(conf, connection, layout, config, Clock.systemUTC()), connection,
                layout, hasher, ProfileConfig.of(profileSettings));
    }

    @Override
    public int run(String[] args) {
        ReconcileOptions o;
        TableLayout layout;
        ReconcileConfig config;
        try {
            o = ReconcileOptions.parse(args);
            layout = layout(o);
            config = ReconcileConfig.from(getConf());
        } catch (RuntimeException e) {
            System.err.println(e.getMessage());
            System.err.println(ReconcileOptions.USAGE);
            return 2;
        }
        try (Connection connection = ConnectionFactory.createConnection(getConf())) {
            Reconciler reconciler = reconciler(getConf(), connection, layout, config, System.getenv());
            if (o.days().oneDay()) {
                DriftReport report = reconciler.reconcile(o.days().from(), o.dryRun(), System.out);
                System.out.print(report.toTable());
                return 0;
            }
            System.out.println("reconcile " + o.days() + " (" + o.days().size() + " days"
                    + (o.dryRun() ? ", dry run: nothing is written" : "") + ") in namespace " + layout.namespace());
            return reconciler.reconcile(o.days(), o.dryRun(), System.out) == 0 ? 0 : 1;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        } catch (Exception e) {
            System.err.println("reconcile " + o.days() + " failed: " + e.getMessage());
            return 1;
        }
    }
}
