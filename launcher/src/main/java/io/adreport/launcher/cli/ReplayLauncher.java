package io.adreport.launcher.cli;

import java.io.PrintStream;
import java.util.List;

/** {@code bin/adreport replay}: delegates to the aggregator's replay client. */
final class ReplayLauncher {
    private ReplayLauncher() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        throw new IllegalStateException("replay: WIRING PENDING");
    }
}
