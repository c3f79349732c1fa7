package io.adreport.benchmarks;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Random;

/**
 * Writes a back-fill as NDJSON for {@code bin/adreport replay}: {@code GenerateBackfill OUT COUNT
 * [DAYS] [CAMPAIGN_KEYS] [SEED] [DAYS_BEFORE] [ORDER]} — COUNT impressions spread uniformly over the
 * DAYS whole UTC days (default 7) that end DAYS_BEFORE days before today (default 0: up to today),
 * across CAMPAIGN_KEYS (advertiser, campaign) pairs (default 20,000, ten campaigns per advertiser)
 * drawn Zipf-skewed.
 *
 * <p>ORDER {@code random} (the default) writes the events in random time order: unlike live
 * traffic nothing coalesces, almost every event hits its own 15-minute counter rows, and every
 * counter row of the span is touched by nearly every flush: the case that makes live flushes long
 * and leaves the aggregator's writer totals the most rows to give up. ORDER {@code time} writes the
 * same distribution in time order, as live traffic and a back-fill read from time-ordered logs
 * arrive: the timestamps are drawn first from their own generator and sorted, so the other fields
 * are drawn as in {@code random} (the same SEED gives the same campaigns, publishers and devices,
 * the k-th event the k-th smallest timestamp).
 */
public final class GenerateBackfill {
    private GenerateBackfill() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: GenerateBackfill OUT COUNT [DAYS] [CAMPAIGN_KEYS] [SEED] [DAYS_BEFORE] [random|time]");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        int count = Integer.parseInt(args[1]);
        int days = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        int keys = args.length > 3 ? Integer.parseInt(args[3]) : 20_000;
        long seed = args.length > 4 ? Long.parseLong(args[4]) : 7;
        int before = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        String order = args.length > 6 ? args[6] : "random";
        if (!order.equals("random") && !order.equals("time")) {
            System.err.println("GenerateBackfill: ORDER must be random or time, not " + order);
            System.exit(2);
        }
        Random random = new Random(seed);
        Zipf campaigns = new Zipf(keys, 1.1);
        Zipf publishers = new Zipf(2000, 1.1);
        String[] deviceTypes = {"mobile", "desktop", "tablet"};
        long end = LocalDate.now(ZoneOffset.UTC).minusDays(before).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        long span = days * 86_400_000L;
        long[] sorted = null;
        if (order.equals("time")) {
            Random times = new Random(~seed);
            sorted = new long[count];
            for (int i = 0; i < count; i++) {
                sorted[i] = end - 1 - (long) (times.nextDouble() * span);
            }
            Arrays.sort(sorted);
        }
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            for (int i = 0; i < count; i++) {
                int k = campaigns.next(random);
                long ts = sorted != null ? sorted[i] : end - 1 - (long) (random.nextDouble() * span);
                w.write("{\"type\":\"impression\",\"id\":\"bf" + seed + "-" + i + "\",\"ts\":" + ts
                        + ",\"advertiser\":\"adv" + k / 10 + "\",\"campaign\":\"c" + k
                        + "\",\"creative\":\"cr" + random.nextInt(5) + "\",\"publisher\":\"pub" + publishers.next(random)
                        + "\",\"zone\":\"z" + random.nextInt(10) + "\",\"country\":\"" + (char) ('A' + random.nextInt(26))
                        + (char) ('A' + random.nextInt(26)) + "\",\"deviceType\":\"" + deviceTypes[random.nextInt(3)]
                        + "\",\"device\":\"d" + random.nextInt(1_000_000) + "\",\"costMicros\":" + (100 + random.nextInt(5000)) + "}\n");
            }
        }
        System.err.printf("wrote %,d impressions in %s order over the %d days before %s across %,d campaign keys to %s%n",
                count, order, days, LocalDate.now(ZoneOffset.UTC).minusDays(before), keys, out);
    }
}
