package io.adreport.launcher.local;

import java.util.ArrayList;
import java.util.List;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Turns SIGINT (Ctrl-C) and SIGTERM into a callback instead of JVM shutdown. A shutdown hook
 * would run concurrently with Hadoop's and HBase's own hooks (file systems closing under a
 * region server that is still flushing); handling the signal lets the main thread stop every
 * part in order, then exit. A second Ctrl-C while stopping exits at once.
 *
 * <p>A signal ignored when the process started (a background job of a non-interactive shell
 * inherits SIGINT ignored) stays ignored: the JVM keeps it so and installs no handler. That is
 * reported, so whoever started the stack knows to stop it with SIGTERM.
 */
final class StopSignal {
    private StopSignal() {
    }

    /** Installs the handlers; returns the names of the signals that were ignored on entry and stay ignored. */
    static List<String> onStop(Runnable stop) {
        boolean[] stopping = {false};
        List<String> ignored = new ArrayList<>();
        for (String name : new String[] {"INT", "TERM"}) {
            SignalHandler previous = Signal.handle(new Signal(name), sig -> {
                synchronized (stopping) {
                    if (stopping[0]) {
                        Runtime.getRuntime().halt(130);
                    }
                    stopping[0] = true;
                }
                stop.run();
            });
            if (previous == SignalHandler.SIG_IGN) {
                ignored.add("SIG" + name);
            }
        }
        return ignored;
    }
}
