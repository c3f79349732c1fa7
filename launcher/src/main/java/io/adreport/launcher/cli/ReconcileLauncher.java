package io.adreport.launcher.cli;

import java.io.PrintStream;

/** {@code bin/adreport reconcile --day D [--dry-run]}. */
final class ReconcileLauncher {
    private ReconcileLauncher() {
    }

    static int run(Context ctx, String day, boolean dryRun, PrintStream out) throws Exception {
        throw new IllegalStateException("reconcile: WIRING PENDING");
    }
}
