package io.adreport.reconcile.job;

import io.adreport.client.cli.Args;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;



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

    /** Parses {@code args} with the one command-line parser ({@link Args}); throws {@link IllegalArgumentException} naming the option and the rule. */
    public static ReconcileOptions parse(String[] args) {
        Args a;
        try {
            a = Args.parse(List.of(args), Set.of("day", "from", "to", "namespace", "cube"), Set.of("dry-run"));
        } catch (Args.UsageException e) {
            throw new IllegalArgumentException(e.getMessage() + "; " + USAGE);
        }
        if (!a.positionals().isEmpty() || !a.sets().isEmpty()) {
            throw new IllegalArgumentException("unexpected " + (a.positionals().isEmpty() ? "--set" : "'" + a.positionals().get(0) + "'")
                    + "; settings are -D name=value; " + USAGE);
        }
        return new ReconcileOptions(DayRange.parse(a.flag("day"), a.flag("from"), a.flag("to")), a.has("dry-run"), a.flag("namespace"),
                a.flag("cube") == null ? null : Path.of(a.flag("cube")));
    }
}
