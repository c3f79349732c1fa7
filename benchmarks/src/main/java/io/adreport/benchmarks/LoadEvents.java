package io.adreport.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Synthetic live traffic, pre-serialized as NDJSON request bodies so that generating it costs
 * nothing during the measurement: Zipf-skewed advertisers, publishers and countries; 90%
 * impressions, 8% clicks and 1% conversions of earlier impressions, 5% replays of earlier
 * events; event times spread over the last {@code spreadSeconds} (live traffic).
 */
final class LoadEvents {
    final List<byte[]> bodies = new ArrayList<>();
    long events;
    long uniqueImpressions;

    LoadEvents(String idPrefix, int count, int perBody, Instant now, int spreadSeconds, double skew, long seed) {
        StringBuilder body = new StringBuilder();
        int[] inBody = {0};
        uniqueImpressions = generate(idPrefix, count, now, spreadSeconds, skew, seed, line -> {
            body.append(line).append('\n');
            events++;
            if (++inBody[0] == perBody) {
                bodies.add(body.toString().getBytes(StandardCharsets.UTF_8));
                body.setLength(0);
                inBody[0] = 0;
            }
        });
        if (inBody[0] > 0) {
            bodies.add(body.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Generates {@code count} NDJSON lines into {@code sink}; returns the number of distinct impressions. */
    static long generate(String idPrefix, int count, Instant now, int spreadSeconds, double skew, long seed,
                         java.util.function.Consumer<String> sink) {
        long unique = 0;
        Random random = new Random(seed);
        Zipf advertisers = new Zipf(1000, skew);
        Zipf publishers = new Zipf(2000, skew);
        Zipf countries = new Zipf(50, skew);
        String[] deviceTypes = {"mobile", "desktop", "tablet"};
        List<String> sent = new ArrayList<>();
        List<Long> impressionTimes = new ArrayList<>();
        List<String> impressionIds = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            double kind = random.nextDouble();
            String line;
            if (kind < 0.05 && !sent.isEmpty()) {
                line = sent.get(random.nextInt(sent.size()));
            } else if (kind < 0.14 && !impressionIds.isEmpty()) {
                int k = impressionIds.size() - 1 - random.nextInt(Math.min(impressionIds.size(), 50_000));
                long ts = Math.min(now.toEpochMilli(), impressionTimes.get(k) + random.nextInt(60_000));
                boolean conversion = kind < 0.06;
                line = "{\"type\":\"" + (conversion ? "conversion" : "click") + "\",\"id\":\"" + idPrefix + (conversion ? "v" : "k") + i
                        + "\",\"ts\":" + ts + ",\"impressionId\":\"" + impressionIds.get(k) + "\""
                        + (conversion ? ",\"valueMicros\":" + (1 + random.nextInt(50_000_000)) : "") + "}";
            } else {
                int adv = advertisers.next(random);
                int pub = publishers.next(random);
                long ts = now.toEpochMilli() - random.nextInt(spreadSeconds * 1000);
                String id = idPrefix + "i" + i;
                line = "{\"type\":\"impression\",\"id\":\"" + id + "\",\"ts\":" + ts
                        + ",\"advertiser\":\"adv" + adv + "\",\"campaign\":\"c" + adv + "-" + random.nextInt(10)
                        + "\",\"creative\":\"cr" + random.nextInt(5) + "\",\"publisher\":\"pub" + pub
                        + "\",\"zone\":\"z" + random.nextInt(10) + "\",\"country\":\"" + country(countries.next(random))
                        + "\",\"deviceType\":\"" + deviceTypes[random.nextInt(3)] + "\",\"device\":\"d" + random.nextInt(1_000_000)
                        + "\",\"costMicros\":" + (100 + random.nextInt(5000)) + "}";
                impressionIds.add(id);
                impressionTimes.add(ts);
                unique++;
            }
            if (sent.size() < 200_000) {
                sent.add(line);
            }
            sink.accept(line);
        }
        return unique;
    }

    private static String country(int k) {
        return "" + (char) ('A' + k / 26) + (char) ('A' + k % 26);
    }
}
