package io.adreport.launcher.cli;

import org.apache.log4j.Level;
import org.apache.log4j.LogManager;

/** Quiet by default (see log4j.properties); {@code --verbose} raises everything to INFO. */
final class Logging {
    private Logging() {
    }

    static void configure(boolean verbose) {
        if (verbose) {
            LogManager.getRootLogger().setLevel(Level.INFO);
            LogManager.getLogger("org.apache.zookeeper").setLevel(Level.INFO);
            LogManager.getLogger("org.apache.hadoop.hbase").setLevel(Level.INFO);
        }
    }
}
