package io.adreport.launcher.cli;

import io.adreport.client.cli.Args;
import io.adreport.launcher.local.Services;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.serving.segments.SegmentLoader;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.hadoop.hbase.client.Connection;

/** {@code bin/adreport segments load FILE}: bulk-loads audience segments into the profiles table. */
final class SegmentsCommand {
    private static final int CHUNK_CELLS = 1_000_000;

    private SegmentsCommand() {
    }

    static int run(Context ctx, Args args, PrintStream out) throws Exception {
        Commands.expect(args, 2, "segments load FILE");
        if (!args.positionals().get(0).equals("load")) {
            throw new Args.UsageException("unknown segments command '" + args.positionals().get(0) + "' (try: segments load FILE)");
        }
        if (!ProfileModel.supported(ctx.cube())) {
            throw new Args.UsageException("cube " + ctx.cube().name() + " has no device profiles (needs a hashed 'device' field, "
                    + "'advertiser' and 'campaign' dimensions and an 'impression' type)");
        }
        Path file = Path.of(args.positionals().get(1));
        if (!Files.isReadable(file)) {
            throw new Args.UsageException("cannot read " + file);
        }
        ProfileConfig profiles = ProfileConfig.from(ctx.settings().resolve(ProfileConfig.DEF));
        var hasher = Services.hasher(ctx);
        long t0 = System.nanoTime();
        try (Connection connection = ctx.connect()) {
            SegmentLoader.Summary s = new SegmentLoader(connection, ctx.layout(), hasher,
                    new UnidentifiedDevices(hasher, profiles.placeholders()), Clock.systemUTC(), CHUNK_CELLS).load(file);
            out.printf("segments: %d lines, %d cells bulk-loaded in %d HFile(s), %d unidentified devices skipped, %.1f s%n",
                    s.lines(), s.cells(), s.files(), s.skippedUnidentified(), (System.nanoTime() - t0) / 1e9);
        } catch (SegmentLoader.BadLine e) {
            out.println("segments: refused, nothing loaded: " + e.getMessage());
            return 65;
        }
        return 0;
    }
}
