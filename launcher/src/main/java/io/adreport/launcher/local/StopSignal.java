package io.adreport.launcher.local;

import sun.misc.Signal;

/**
 * Turns SIGINT (Ctrl-C) and SIGTERM into a callback instead of JVM shutdown. A shutdown hook
 * would run concurrently with Hadoop's and HBase's own hooks (file systems closing under a
 * region server that is still flushing); handling the signal lets the main thread stop every
 * part in order, then exit. A second Ctrl-C while stopping exits at once.
 */
final class StopSignal {
    private StopSignal() {
    }

    static void onStop(Runnable stop) {
        boolean[] stopping = {false};
        for (String name : new String[] {"INT", "TERM"}) {
            Signal.handle(new Signal(name), sig -> {
                synchronized (stopping) {
                    if (stopping[0]) {
                        Runtime.getRuntime().halt(130);
                    }
                    stopping[0] = true;
                }
                stop.run();
            });
        }
    }
}
