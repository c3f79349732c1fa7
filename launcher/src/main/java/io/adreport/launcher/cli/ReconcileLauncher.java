package io.adreport.launcher.cli;

import io.adreport.launcher.local.Services;
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

/**
 * {@code bin/adreport reconcile --day D [--dry-run]} and {@code --from D1 --to D2}: the job in
 * this JVM's local job runner. A range ({@code --to} included) runs its days oldest first in one
 * process over one HBase connection — the JVM start, Hadoop's class loading and the connection
 * are paid once — and prints one line per day; a failed day is reported and the others go on
 * (exit 1 at the end).
 */
final class ReconcileLauncher {
    /** Longest range of one command: a year of days. */
    static final int MAX_DAYS = 366;

    private ReconcileLauncher() {
    }

    static int runRange(Settings settings, String fromText, String toText, boolean dryRun, PrintStream out) throws Exception {
        LocalDate from = day("--from", fromText);
        LocalDate to = day("--to", toText);
        if (to.isBefore(from)) {
            throw new Args.UsageException("--to: must not be before --from (" + from + "), not " + to);
        }
        long days = java.time.temporal.ChronoUnit.DAYS.between(from, to) + 1;
        if (days > MAX_DAYS) {
            throw new Args.UsageException("--to: at most " + MAX_DAYS + " days from --from, not " + days);
        }
        Context ctx = Context.from(settings);
        ReconcileConfig config = ReconcileConfig.from(ctx.settings().resolve(ReconcileConfig.DEF));
        Configuration conf = ctx.hbaseConfiguration();
        int failed = 0;
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            out.println("reconcile " + from + " .. " + to + " (" + days + " days" + (dryRun ? ", dry run: nothing is written" : "")
                    + ") in namespace " + ctx.layout().namespace());
            Reconciler reconciler = Services.withViewRepair(ctx, connection,
                    new Reconciler(conf, connection, ctx.layout(), config, Clock.systemUTC()));
            int i = 0;
            for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
                i++;
                long start = System.nanoTime();
                try {
                    DriftReport r = reconciler.reconcile(d, dryRun, null);
                    out.printf("%s  %d/%d  %s  events %d, cells checked %d, corrected %d, absolute drift %d  (%.1f s)%n", d, i, days,
                            r.status(), r.totals().eventsRead(), r.totals().cellsChecked(), r.totals().cellsCorrected(),
                            r.totals().absoluteDrift(), (System.nanoTime() - start) / 1e9);
                } catch (Exception e) {
                    failed++;
                    out.printf("%s  %d/%d  FAILED  %s  (%.1f s)%n", d, i, days, e.getMessage(), (System.nanoTime() - start) / 1e9);
                }
                out.flush();
            }
        }
        out.println(failed == 0 ? "all " + days + " days done" : failed + " of " + days + " days failed (they stay closing; run them again)");
        return failed == 0 ? 0 : 1;
    }

    private static LocalDate day(String option, String text) {
        try {
            return ReconcileOptions.parseDay(text);
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(option + e.getMessage().substring("--day".length()));
        }
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
            DriftReport report = Services.withViewRepair(ctx, connection,
                    new Reconciler(conf, connection, ctx.layout(), config, Clock.systemUTC())).reconcile(day, dryRun, out);
            out.print(report.toTable());
            return 0;
        }
    }
}
