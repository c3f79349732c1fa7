package io.adreport.launcher.cli;

import java.io.PrintStream;

/** {@code bin/adreport keys add|revoke|list}. */
final class KeysCommand {
    private KeysCommand() {
    }

    static int run(Context ctx, Args args, PrintStream out) throws Exception {
        throw new IllegalStateException("keys: WIRING PENDING");
    }
}
