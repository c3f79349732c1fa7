package io.adreport.launcher.cli;

import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.table.SchemaApplier;
import java.io.PrintStream;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/adreport schema apply [--dry-run]}: create or verify the tables (with the profiles
 * table's region replicas, {@code profiles.region.replication}); exit 2 on drift.
 */
final class SchemaCommand {
    private SchemaCommand() {
    }

    static int run(Context ctx, boolean dryRun, PrintStream out) throws Exception {
        try (Connection c = ctx.connect(); Admin admin = c.getAdmin()) {
            SchemaApplier applier = new SchemaApplier(ctx.layout());
            if (ProfileModel.supported(ctx.cube())) {
                applier.withRegionReplication(ctx.layout().profilesTable(),
                        ProfileConfig.from(ctx.settings().resolve(ProfileConfig.DEF)).regionReplication());
            }
            SchemaApplier.Report report = applier.apply(admin, dryRun);
            out.println((dryRun ? "schema (dry run) for cube '" : "schema for cube '") + ctx.cube().name()
                    + "' in namespace '" + ctx.layout().namespace() + "':");
            out.println(report);
            return report.hasDrift() ? 2 : 0;
        }
    }
}
