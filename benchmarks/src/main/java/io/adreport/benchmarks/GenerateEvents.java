package io.adreport.benchmarks;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Writes synthetic live traffic ({@link LoadEvents}) as an NDJSON file for {@code bin/adreport replay}:
 * {@code GenerateEvents OUT COUNT [ID_PREFIX] [SPREAD_SECONDS] [SEED] [NOW_EPOCH_MS]}. Event times fall
 * within the last SPREAD_SECONDS (default 600) before now (or before NOW_EPOCH_MS: files made at different
 * moments that cover the same time range), so the file must be replayed soon after it is made.
 */
public final class GenerateEvents {
    private GenerateEvents() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: GenerateEvents OUT COUNT [ID_PREFIX] [SPREAD_SECONDS] [SEED] [NOW_EPOCH_MS]");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        int count = Integer.parseInt(args[1]);
        String prefix = args.length > 2 ? args[2] : "gen-";
        int spread = args.length > 3 ? Integer.parseInt(args[3]) : 600;
        long seed = args.length > 4 ? Long.parseLong(args[4]) : 42;
        Instant now = args.length > 5 ? Instant.ofEpochMilli(Long.parseLong(args[5])) : Instant.now();
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            long unique = LoadEvents.generate(prefix, count, now, spread, 1.1, seed, line -> {
                try {
                    w.write(line);
                    w.write('\n');
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            System.err.printf("wrote %,d events (%,d distinct impressions) to %s%n", count, unique, out);
        }
    }
}
