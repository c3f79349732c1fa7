package io.adreport.launcher.cli;

import io.adreport.client.replay.Replay;
import java.io.PrintStream;
import java.util.List;

/** {@code bin/adreport replay FILE ...}: the ingest client's replay CLI (it parses its own options). */
final class ReplayLauncher {
    private ReplayLauncher() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        return Replay.run(args, out, err);
    }
}
