package io.adreport.launcher.cli;

import io.adreport.launcher.local.Services;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.reconcile.job.DayRange;
import java.io.PrintStream;
import java.time.Clock;
import java.time.LocalDate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * {@code bin/adreport reconcile --day D [--dry-run]} and {@code --from D1 --to D2}: the job in
 * this JVM's local job runner. The flags are {@link DayRange}'s, parsed by {@code Commands}; a
 * range runs its days oldest first in one process over one HBase connection, one line per day
 * ({@link Reconciler#reconcile(DayRange, boolean, PrintStream)}, shared with the
 * {@code hadoop jar} tool); a failed day is reported and the others go on (exit 1 at the end).
 */
final class ReconcileLauncher {

    private ReconcileLauncher() {
    }

    static int runRange(Settings settings, DayRange days, boolean dryRun, PrintStream out) throws Exception {
        Context ctx = Context.from(settings);
        ReconcileConfig config = ReconcileConfig.from(ctx.settings().resolve(ReconcileConfig.DEF));
        Configuration conf = ctx.hbaseConfiguration();
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            out.println("reconcile " + days + " (" + days.size() + " days" + (dryRun ? ", dry run: nothing is written" : "")
                    + ") in namespace " + ctx.layout().namespace());
            Reconciler reconciler = Services.withViewRepair(ctx, connection,
                    new Reconciler(conf, connection, ctx.layout(), config, Clock.systemUTC()));
            return reconciler.reconcile(days, dryRun, out) == 0 ? 0 : 1;
        }
    }

    static int run(Context ctx, LocalDate day, boolean dryRun, PrintStream out) throws Exception {
        ReconcileConfig config = ReconcileConfig.from(ctx.settings().resolve(ReconcileConfig.DEF));
        Configuration conf = ctx.hbaseConfiguration();
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            out.println("reconcile " + day + (dryRun ? " (dry run: nothing is written)" : "") + " in namespace " + ctx.layout().namespace());
            DriftReport report = Services.withViewRepair(ctx, connection,
                    new Reconciler(conf, connection, ctx.layout(), config, Clock.systemUTC())).reconcile(day, dryRun, out);
            out.print(report.toTable());
            return 0;
        }
    }
}
