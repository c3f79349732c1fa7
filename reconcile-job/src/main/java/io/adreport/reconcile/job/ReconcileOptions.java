package io.adreport.reconcile.job;

import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * The command-line options of the reconcile job, checked.
 *
 * @param day       the UTC day to recount
 * @param dryRun    count and report only; write nothing
 * @param namespace HBase namespace, or null for the cube's name
 * @param cubeFile  cube file, or null for the built-in ads cube
 */
public record ReconcileOptions(LocalDate day, boolean dryRun, String namespace, Path cubeFile) {

    public static final String USAGE = "usage: reconcile --day YYYY-MM-DD [--dry-run] [--namespace NS] [--cube FILE]";

    public ReconcileOptions {
        if (day == null) {
            throw new IllegalArgumentException("--day: is required (YYYY-MM-DD, a UTC day)");
        }
        if (namespace != null && !namespace.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("--namespace: must be letters, digits or _, not '" + namespace + "'");
        }
    }

    /** Parses {@code args}; throws {@link IllegalArgumentException} naming the option and the rule. */
    public static ReconcileOptions parse(String[] args) {
        LocalDate day = null;
        boolean dryRun = false;
        String namespace = null;
        Path cube = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--day" -> day = parseDay(value(args, ++i, a));
                case "--dry-run" -> dryRun = true;
                case "--namespace" -> namespace = value(args, ++i, a);
                case "--cube" -> cube = Path.of(value(args, ++i, a));
                default -> throw new IllegalArgumentException(a + ": unknown option; " + USAGE);
            }
        }
        return new ReconcileOptions(day, dryRun, namespace, cube);
    }

    public static LocalDate parseDay(String v) {
        try {
            return LocalDate.parse(v);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--day: must be a date YYYY-MM-DD, not '" + v + "'");
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + ": needs a value; " + USAGE);
        }
        return args[i];
    }
}
