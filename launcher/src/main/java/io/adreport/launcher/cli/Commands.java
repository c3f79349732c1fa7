package io.adreport.launcher.cli;

import io.adreport.client.cli.Args;
import io.adreport.launcher.control.ControlClient;
import io.adreport.launcher.local.LocalStack;
import io.adreport.reconcile.Reconciler;
import io.adreport.schema.config.CoreConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import io.adreport.reconcile.job.DayRange;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Dispatches {@code bin/adreport COMMAND ...}. */
public final class Commands {
    static final String USAGE = """
            usage: bin/adreport COMMAND [options]

              local [--demo] [--demo-rate N] [--data-dir DIR] [--port P] [--ingest-port P] [--cube FILE] [--verbose]
                    run everything on this machine: embedded HBase, ingest, report API + dashboard, nightly reconcile
              schema apply [--dry-run]           create or verify the tables (exit 2 when they drift from the cube)
              reconcile --day YYYY-MM-DD [--dry-run] [--in-process]
              reconcile --from YYYY-MM-DD --to YYYY-MM-DD [--dry-run] [--in-process]
                                                 recount a day (or the days from..to, both included, oldest first,
                                                 one line each) from raw events and correct the counters; beside a
                                                 running local stack the stack's process runs it (--in-process: this one)
              segments load FILE                 bulk-load audience segments (CSV device,segment,score) into device profiles
              privacy delete DEVICE [--wait]     delete what is held about a device (raw events keep counting without it;
                                                 profile and index deleted); prints the deletion id, with --wait its steps.
                                                 A running report API (local or report-api) carries it out
              keys add --role analyst|adserver|privacy|advertiser:ID|publisher:ID
              keys revoke KEY_OR_HASH_PREFIX
              keys list
              replay FILE [--rate N] [--url URL] [...]   post an NDJSON or CSV file of events (replay --help)
              aggregator | report-api            run one service against the configured HBase (cluster deployments,
                                                 or one more aggregator next to a running local stack:
                                                 --set aggregator.instances=2 on both, see README)
              config                             print every setting (markdown)

            common options: --data-dir DIR (default ./data), --cube FILE, --config FILE, --set name=value, --verbose
            Commands other than 'local' talk to the local stack running with the same --data-dir,
            or to the cluster whose hbase-site.xml is in HBASE_CONF_DIR.
            """;

    static final Map<String, String> FLAG_SETTINGS = Map.of(
            "data-dir", "data.dir",
            "cube", "cube.file",
            "port", "report.port",
            "ingest-port", "ingest.port",
            "namespace", "hbase.namespace");

    private static final Set<String> VALUED = Set.of("data-dir", "cube", "config", "port", "ingest-port", "namespace",
            "role", "day", "from", "to", "demo-rate");
    private static final Set<String> BOOLEANS = Set.of("demo", "dry-run", "verbose", "help", "wait", "in-process");

    private Commands() {
    }

    public static int run(List<String> argv, PrintStream out, PrintStream err) throws Exception {
        if (argv.isEmpty() || List.of("help", "--help", "-h").contains(argv.get(0))) {
            out.print(USAGE);
            return argv.isEmpty() ? 64 : 0;
        }
        String command = argv.get(0);
        List<String> rest = argv.subList(1, argv.size());
        if (command.equals("replay")) {
            return ReplayLauncher.run(rest, out, err);
        }
        Args args = Args.parse(rest, VALUED, BOOLEANS);
        if (args.has("help")) {
            out.print(USAGE);
            return 0;
        }
        Logging.configure(args.has("verbose"));
        Settings settings = Settings.from(args, FLAG_SETTINGS);
        switch (command) {
            case "local" -> {
                return LocalStack.run(settings, args, out);
            }
            case "schema" -> {
                expect(args, 1, "schema apply [--dry-run]");
                if (!args.positionals().get(0).equals("apply")) {
                    throw new Args.UsageException("unknown schema command '" + args.positionals().get(0) + "' (try: schema apply)");
                }
                return SchemaCommand.run(Context.from(settings), args.has("dry-run"), out);
            }
            case "reconcile" -> {
                DayRange days = days(args);
                Optional<Integer> inStack = inLocalStack(argv, args, settings, out);
                if (inStack.isPresent()) {
                    return inStack.get();
                }
                return ReconcileLauncher.run(Context.from(settings), days, args.has("dry-run"), out);
            }
            case "segments" -> {
                return SegmentsCommand.run(Context.from(settings), args, out);
            }
            case "privacy" -> {
                return PrivacyCommand.run(Context.from(settings), args, out);
            }
            case "keys" -> {
                return KeysCommand.run(Context.from(settings), args, out);
            }
            case "aggregator", "report-api" -> {
                // Next to a local stack, Services.hasher takes the stack's generated secret from the data directory.
                return ServiceCommand.run(command, Context.from(settings), out);
            }
            case "config" -> {
                out.print(ConfigDefs.markdown());
                return 0;
            }
            default -> throw new Args.UsageException("unknown command '" + command + "'");
        }
    }

    /**
     * Runs the command in the local stack of the data directory through its control socket
     * ({@link ControlClient}); empty when it must run here: {@code --in-process}, settings of its
     * own ({@code --set}, {@code --config}, {@code --cube}, {@code --namespace}: the stack runs with
     * its own), or no stack listening.
     */
    private static Optional<Integer> inLocalStack(List<String> argv, Args args, Settings settings, PrintStream out)
            throws IOException {
        if (args.has("in-process") || !args.sets().isEmpty() || args.has("config") || args.has("cube") || args.has("namespace")) {
            return Optional.empty();
        }
        Path dataDir = CoreConfig.from(settings.resolve(CoreConfig.DEF)).dataDir();
        return ControlClient.run(dataDir, argv, out);
    }

    /**
     * A command sent through the local stack's control socket ({@code ControlServer}), run in the
     * stack's process with its context and its {@code reconciler}: only {@code reconcile}.
     */
    public static int runInStack(List<String> argv, Context ctx, Reconciler reconciler, PrintStream out) {
        try {
            if (argv.isEmpty() || !argv.get(0).equals("reconcile")) {
                throw new Args.UsageException("the local stack runs only 'reconcile' through its control socket, not " + argv);
            }
            Args args = Args.parse(argv.subList(1, argv.size()), VALUED, BOOLEANS);
            return ReconcileLauncher.run(reconciler, ctx.layout().namespace(), days(args), args.has("dry-run"),
                    " (in the local stack's process)", out);
        } catch (Exception e) {
            return exitCode(e, out);
        }
    }

    /** The days of a {@code reconcile} command line; a wrong one is a usage error. */
    private static DayRange days(Args args) {
        try {
            return DayRange.parse(args.flag("day"), args.flag("from"), args.flag("to"));
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(e.getMessage());
        }
    }

    /** Prints what a failed command says and returns its exit code (64: usage, 1: anything else). */
    public static int exitCode(Exception e, PrintStream err) {
        if (e instanceof Args.UsageException) {
            err.println("adreport: " + e.getMessage());
            err.println("Run 'bin/adreport help' for usage.");
            return 64;
        }
        if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
            err.println("adreport: " + e.getMessage());
            return 1;
        }
        err.println("adreport: " + e);
        e.printStackTrace(err);
        return 1;
    }

    static void expect(Args args, int positionals, String usage) {
        if (args.positionals().size() != positionals) {
            throw new Args.UsageException("usage: bin/adreport " + usage);
        }
    }
}
