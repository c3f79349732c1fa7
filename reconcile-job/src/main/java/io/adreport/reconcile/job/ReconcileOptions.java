package io.adreport.reconcile.job;

import java.nio.file.Path;

/**
 * The command-line options of the {@code hadoop jar} reconcile tool, checked. The day flags
 * are {@link DayRange}'s, the parser {@code bin/adreport reconcile} uses too.
 *
 * @param days      the UTC day or days to recount
 * @param dryRun    count and report only; write nothing
 * @param namespace HBase namespace, or null for the cube's name
 * @param cubeFile  cube file, or null for the built-in ads cube
 */
public record ReconcileOptions(DayRange days, boolean dryRun, String namespace, Path cubeFile) {

    public static final String USAGE = "usage: reconcile (--day YYYY-MM-DD | --from YYYY-MM-DD --to YYYY-MM-DD)"
            + " [--dry-run] [--namespace NS] [--cube FILE]";

    public ReconcileOptions {
        if (days == null) {
            throw new IllegalArgumentException("reconcile needs --day YYYY-MM-DD");
        }
        if (namespace != null && !namespace.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("--namespace: must be letters, digits or _, not '" + namespace + "'");
        }
    }

    /** Parses {@code args}; throws {@link IllegalArgumentException} naming the option and the rule. */
    public static ReconcileOptions parse(String[] args) {
        String day = null;
        String from = null;
        String to = null;
        boolean dryRun = false;
        String namespace = null;
        Path cube = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--day" -> day = value(args, ++i, a);
                case "--from" -> from = value(args, ++i, a);
                case "--to" -> to = value(args, ++i, a);
                case "--dry-run" -> dryRun = true;
                case "--namespace" -> namespace = value(args, ++i, a);
                case "--cube" -> cube = Path.of(value(args, ++i, a));
                default -> throw new IllegalArgumentException(a + ": unknown option; " + USAGE);
            }
        }
        return new ReconcileOptions(DayRange.parse(day, from, to), dryRun, namespace, cube);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + ": needs a value; " + USAGE);
        }
        return args[i];
    }
}
