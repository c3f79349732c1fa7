package io.adreport.launcher.cli;

import io.adreport.reconcile.report.DriftReport;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.reconcile.job.ReconcileOptions;
import java.io.PrintStream;
import java.time.Clock;
import java.time.LocalDate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/** {@code bin/adreport reconcile --day D [--dry-run]}: the job in this JVM's local job runner. */
final class ReconcileLauncher {
    private ReconcileLauncher() {
    }

    static int run(Context ctx, String dayText, boolean dryRun, PrintStream out) throws Exception {
        LocalDate day;
        try {
            day = ReconcileOptions.parseDay(dayText);
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(e.getMessage());
        }
        ReconcileConfig config = ReconcileConfig.from(ctx.settings().resolve(ReconcileConfig.DEF));
        Configuration conf = ctx.hbaseConfiguration();
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            out.println("reconcile " + day + (dryRun ? " (dry run: nothing is written)" : "") + " in namespace " + ctx.layout().namespace());
            DriftReport report = new Reconciler(conf, connection, ctx.layout(), config, Clock.systemUTC()).reconcile(day, dryRun, out);
            out.print(report.toTable());
            return 0;
        }
    }
}
