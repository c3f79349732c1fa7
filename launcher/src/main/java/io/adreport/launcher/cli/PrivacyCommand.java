package io.adreport.launcher.cli;

import io.adreport.client.cli.Args;
import io.adreport.launcher.local.Services;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.privacy.Deletion;
import io.adreport.schema.privacy.DeletionStep;
import io.adreport.schema.privacy.DeletionStore;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/adreport privacy delete DEVICE [--wait]}: records a deletion of the device (hashed
 * here with the configured secret; the raw id is neither stored nor printed) in the privacy
 * table, where the worker of a running report API (the local stack or {@code report-api}) picks
 * it up; prints the deletion id and, with {@code --wait}, each step as it is reached, until done.
 */
final class PrivacyCommand {
    private static final Duration POLL = Duration.ofMillis(500);

    private PrivacyCommand() {
    }

    static int run(Context ctx, Args args, PrintStream out) throws Exception {
        Commands.expect(args, 2, "privacy delete DEVICE [--wait]");
        if (!args.positionals().get(0).equals("delete")) {
            throw new Args.UsageException("unknown privacy command '" + args.positionals().get(0) + "' (try: privacy delete DEVICE)");
        }
        if (!ProfileModel.supported(ctx.cube())) {
            throw new Args.UsageException("cube " + ctx.cube().name() + " holds nothing per device (no hashed 'device' field with profiles)");
        }
        var hashes = Services.hashes(ctx);
        ProfileConfig profiles = ProfileConfig.from(ctx.settings().resolve(ProfileConfig.DEF));
        String device;
        try {
            device = DeletionStore.requireDevice(args.positionals().get(1), new UnidentifiedDevices(hashes, profiles.placeholders()));
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("device: " + e.getMessage());
        }
        Clock clock = Clock.systemUTC();
        try (Connection connection = ctx.connect()) {
            DeletionStore store = new DeletionStore(connection, ctx.layout());
            String id = store.create(hashes.all(device), clock.instant()); // both secrets' data while rotating
            out.println(id);
            if (!args.has("wait")) {
                return 0;
            }
            Set<DeletionStep> printed = EnumSet.noneOf(DeletionStep.class);
            while (true) {
                Deletion d = store.get(id).orElseThrow();
                for (var step : d.steps().entrySet()) {
                    if (printed.add(step.getKey())) {
                        out.printf("%-18s %s%s%n", step.getKey().label(), step.getValue(), detail(d, step.getKey()));
                    }
                }
                if (d.done()) {
                    return 0;
                }
                Thread.sleep(POLL.toMillis());
            }
        }
    }

    private static String detail(Deletion d, DeletionStep step) {
        if (step == DeletionStep.UNREADABLE) {
            return "  (" + d.eventsRewritten() + " raw events rewritten, " + d.profileCells() + " profile cells deleted)";
        }
        if (step == DeletionStep.DONE) {
            return "  (" + Duration.between(d.requestedAt(), d.steps().get(DeletionStep.DONE)).toMillis() / 1000.0 + " s after the request)";
        }
        return "";
    }
}
