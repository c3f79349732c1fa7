package io.adreport.launcher.cli;

import io.adreport.client.cli.Args;
import io.adreport.launcher.local.LocalStack;
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
              reconcile --day YYYY-MM-DD [--dry-run]
              reconcile --from YYYY-MM-DD --to YYYY-MM-DD [--dry-run]
                                                 recount a day (or the days from..to, both included, oldest first,
                                                 one line each) from raw events and correct the counters
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
    private static final Set<String> BOOLEANS = Set.of("demo", "dry-run", "verbose", "help", "wait");

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
                DayRange days;
                try {
                    days = DayRange.parse(args.flag("day"), args.flag("from"), args.flag("to"));
                } catch (IllegalArgumentException e) {
                    throw new Args.UsageException(e.getMessage());
                }
                if (days.oneDay()) {
                    return ReconcileLauncher.run(Context.from(settings), days.from(), args.has("dry-run"), out);
                }
                return ReconcileLauncher.runRange(settings, days, args.has("dry-run"), out);
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

    static void expect(Args args, int positionals, String usage) {
        if (args.positionals().size() != positionals) {
            throw new Args.UsageException("usage: bin/adreport " + usage);
        }
    }
}
