package io.adreport.launcher.cli;

import io.adreport.launcher.local.Services;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.Reconciler;
import io.adreport.reconcile.job.DayRange;
import io.adreport.reconcile.report.DriftReport;
import java.io.PrintStream;
import java.time.Clock;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * {@code bin/adreport reconcile --day D [--dry-run]} and {@code --from D1 --to D2}. Beside a
 * running local stack the pass runs in the stack's process (its control socket,
 * {@code Commands}); otherwise, or with {@code --in-process}, in this JVM's local job runner (or on
 * the cluster's YARN, by its configuration). The flags are {@link DayRange}'s, parsed by
 * {@code Commands}; a range runs its days oldest first over one HBase connection, one line per day
 * ({@link Reconciler#reconcile(DayRange, boolean, PrintStream)}, shared with the
 * {@code hadoop jar} tool); a failed day is reported and the others go on (exit 1 at the end).
 */
public final class ReconcileLauncher {

    private ReconcileLauncher() {
    }

    /** The pass in this process, over a connection of its own. */
    static int run(Context ctx, DayRange days, boolean dryRun, PrintStream out) throws Exception {
        ReconcileConfig config = ReconcileConfig.from(ctx.settings().resolve(ReconcileConfig.DEF));
        Configuration conf = ctx.hbaseConfiguration();
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            Reconciler reconciler = Services.withViewRepair(ctx, connection,
                    new Reconciler(conf, connection, ctx.layout(), config, Clock.systemUTC()));
            return run(reconciler, ctx.layout().namespace(), days, dryRun, "", out);
        }
    }

    /**
     * The pass with {@code reconciler} (the local stack's own, for a request through its control
     * socket); {@code where} ends the first line (" in the local stack's process", or empty).
     */
    public static int run(Reconciler reconciler, String namespace, DayRange days, boolean dryRun, String where, PrintStream out)
            throws Exception {
        if (days.oneDay()) {
            out.println("reconcile " + days.from() + (dryRun ? " (dry run: nothing is written)" : "") + " in namespace " + namespace + where);
            DriftReport report = reconciler.reconcile(days.from(), dryRun, out);
            out.print(report.toTable());
            return 0;
        }
        out.println("reconcile " + days + " (" + days.size() + " days" + (dryRun ? ", dry run: nothing is written" : "")
                + ") in namespace " + namespace + where);
        return reconciler.reconcile(days, dryRun, out) == 0 ? 0 : 1;
    }
}
