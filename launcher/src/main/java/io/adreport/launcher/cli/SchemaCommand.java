package io.adreport.launcher.cli;

import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.table.ReplicaPlacement;
import io.adreport.schema.table.SchemaApplier;
import java.io.PrintStream;
import java.time.Duration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/adreport schema apply [--dry-run]}: create or verify the tables (with the profiles
 * table's region replicas, {@code profiles.region.replication}); exit 2 on drift. With replicas,
 * it asks the balancer to separate any that share a region server and prints the placement.
 */
final class SchemaCommand {
    private SchemaCommand() {
    }

    static int run(Context ctx, boolean dryRun, PrintStream out) throws Exception {
        try (Connection c = ctx.connect(); Admin admin = c.getAdmin()) {
            SchemaApplier applier = new SchemaApplier(ctx.layout());
            int replicas = ProfileModel.supported(ctx.cube())
                    ? ProfileConfig.from(ctx.settings().resolve(ProfileConfig.DEF)).regionReplication() : 1;
            if (ProfileModel.supported(ctx.cube())) {
                applier.withRegionReplication(ctx.layout().profilesTable(), replicas);
            }
            SchemaApplier.Report report = applier.apply(admin, dryRun);
            out.println((dryRun ? "schema (dry run) for cube '" : "schema for cube '") + ctx.cube().name()
                    + "' in namespace '" + ctx.layout().namespace() + "':");
            out.println(report);
            if (!dryRun && replicas > 1) {
                // After a region server's death both replicas may sit on one survivor: no timeline read then.
                ReplicaPlacement.Placement p = ReplicaPlacement.spread(c, admin, ctx.layout().profilesTable(), Duration.ofMinutes(2));
                out.println(p);
                if (p.colocated() > 0 && p.live() > 1) {
                    out.println("warning: the balancer did not separate the replicas within 2 minutes; timeline reads of those "
                            + "regions have no secondary until it does");
                }
            }
            return report.hasDrift() ? 2 : 0;
        }
    }
}
