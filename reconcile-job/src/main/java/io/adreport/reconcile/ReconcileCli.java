package io.adreport.reconcile;

import io.adreport.reconcile.job.ReconcileOptions;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.schema.config.CoreConfig;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.hbase.HBaseEndpoint;
import io.adreport.schema.table.TableLayout;
import java.io.PrintStream;
import java.time.Clock;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * {@code bin/adreport reconcile --day YYYY-MM-DD [--dry-run] [--data-dir DIR] [--namespace NS]
 * [--cube FILE] [--set name=value ...]}: reconciles one day with the local job runner against
 * the HBase the configuration names (a running local stack, or {@code HBASE_CONF_DIR}), printing
 * map/reduce progress and then the drift report. Exit codes: 0 done, 1 failed, 2 bad usage.
 */
public final class ReconcileCli {
    public static final String USAGE = "usage: adreport reconcile --day YYYY-MM-DD [--dry-run] [--data-dir DIR]"
            + " [--namespace NS] [--cube FILE] [--set name=value ...]";

    private ReconcileCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        LocalDate day = null;
        boolean dryRun = false;
        Map<String, String> settings = new LinkedHashMap<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--day" -> day = ReconcileOptions.parseDay(value(args, ++i, "--day"));
                    case "--dry-run" -> dryRun = true;
                    case "--data-dir" -> settings.put("data.dir", value(args, ++i, "--data-dir"));
                    case "--namespace" -> settings.put("hbase.namespace", value(args, ++i, "--namespace"));
                    case "--cube" -> settings.put("cube.file", value(args, ++i, "--cube"));
                    case "--set" -> {
                        String kv = value(args, ++i, "--set");
                        int eq = kv.indexOf('=');
                        if (eq < 1) {
                            throw new IllegalArgumentException("--set: must be name=value, not '" + kv + "'");
                        }
                        settings.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                    default -> throw new IllegalArgumentException(args[i] + ": unknown option");
                }
            }
            if (day == null) {
                throw new IllegalArgumentException("--day: is required (YYYY-MM-DD, a UTC day)");
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        CoreConfig core;
        ReconcileConfig config;
        Configuration conf;
        try {
            core = CoreConfig.from(CoreConfig.DEF.parse(settings));
            config = ReconcileConfig.from(ReconcileConfig.DEF.parse(settings));
            conf = HBaseEndpoint.configuration(core.dataDir());
        } catch (RuntimeException e) {
            err.println(e.getMessage());
            return 2;
        }
        Cube cube = core.loadCube();
        TableLayout layout = new TableLayout(cube, core.namespaceFor(cube));
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            out.println("reconcile " + day + (dryRun ? " (dry run)" : "") + " in " + layout.namespace());
            DriftReport report = new Reconciler(conf, connection, layout, config, Clock.systemUTC()).reconcile(day, dryRun, out);
            out.print(report.toTable());
            return 0;
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("reconcile " + day + " failed: " + e.getMessage());
            return 1;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + ": needs a value");
        }
        return args[i];
    }
}
