package io.adreport.reconcile;

import io.adreport.reconcile.job.ReconcileJob;
import io.adreport.reconcile.job.ReconcileOptions;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
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
 * The reconcile job as a Hadoop {@link Tool}, for a cluster:
 * <pre>
 * hadoop jar reconcile-job/target/adreport-reconcile-job-*.jar io.adreport.reconcile.ReconcileTool \
 *     -D reconcile.splits=16 --day 2026-11-28 [--dry-run] [--namespace NS] [--cube FILE]
 * </pre>
 * with {@code hbase-site.xml} on the classpath (e.g. {@code HADOOP_CLASSPATH=$(hbase mapredcp)}).
 * Settings of {@link ReconcileConfig} are given as {@code -D name=value}. It runs the whole
 * day-close protocol, then prints the drift report. Exit codes: 0 done, 1 failed (the job, or
 * HBase), 2 bad options.
 */
public final class ReconcileTool extends Configured implements Tool {

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(HBaseConfiguration.create(), new ReconcileTool(), args));
    }

    /** The job for {@code args}, configured and not submitted. */
    public static Job createSubmittableJob(Configuration conf, String[] args) throws IOException {
        ReconcileOptions o = ReconcileOptions.parse(args);
        return ReconcileJob.create(conf, layout(o), o.day(), o.dryRun());
    }

    static TableLayout layout(ReconcileOptions o) {
        Cube cube = o.cubeFile() == null ? CubeLoader.defaultCube() : CubeLoader.load(o.cubeFile());
        return new TableLayout(cube, o.namespace() == null ? cube.name() : o.namespace());
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
            DriftReport report = new Reconciler(getConf(), connection, layout, config, Clock.systemUTC())
                    .reconcile(o.day(), o.dryRun(), System.out);
            System.out.print(report.toTable());
            return 0;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        } catch (Exception e) {
            System.err.println("reconcile " + o.day() + " failed: " + e.getMessage());
            return 1;
        }
    }
}
