package io.adreport.launcher.cli;

import io.adreport.schema.table.SchemaApplier;
import java.io.PrintStream;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

/** {@code bin/adreport schema apply [--dry-run]}: create or verify the tables; exit 2 on drift. */
final class SchemaCommand {
    private SchemaCommand() {
    }

    static int run(Context ctx, boolean dryRun, PrintStream out) throws Exception {
        try (Connection c = ctx.connect(); Admin admin = c.getAdmin()) {
            SchemaApplier.Report report = new SchemaApplier(ctx.layout()).apply(admin, dryRun);
            out.println((dryRun ? "schema (dry run) for cube '" : "schema for cube '") + ctx.cube().name()
                    + "' in namespace '" + ctx.layout().namespace() + "':");
            out.println(report);
            return report.hasDrift() ? 2 : 0;
        }
    }
}
