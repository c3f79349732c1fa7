package io.adreport.serving.check;

import io.adreport.schema.inventory.Ad;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The choice among eligible ads, pure: score = eCPM, or {@code ecpm × ln(1.1 + matches)} when the
 * request carries keywords ({@code matches} = keywords the ad shares with the request, so an ad
 * without a match still scores {@code ecpm × ln 1.1}); highest score first; ads of equal score in
 * random order (uniform, from the injected generator); at most one ad per campaign (the best), so
 * a page of {@code count} ads never shows one campaign twice.
 */
final class AdSelector {
    private AdSelector() {
    }

    /** A ranked ad and its score. */
    record Ranked(Ad ad, double score) {
    }

    static double score(Ad ad, Set<String> keywords) {
        if (keywords.isEmpty()) {
            return ad.ecpmMicros();
        }
        int matches = 0;
        for (String k : ad.keywords()) {
            if (keywords.contains(k)) {
                matches++;
            }
        }
        return ad.ecpmMicros() * Math.log(1.1 + matches);
    }

    static List<Ranked> rank(List<Ad> eligible, Set<String> keywords, int count, RandomGenerator rng) {
        List<Ranked> all = new ArrayList<>(eligible.size());
        for (Ad a : eligible) {
            all.add(new Ranked(a, score(a, keywords)));
        }
        // Shuffle first, then a stable sort by score: equal scores keep the random order.
        for (int i = all.size() - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            Ranked t = all.get(i);
            all.set(i, all.get(j));
            all.set(j, t);
        }
        all.sort(Comparator.comparingDouble(Ranked::score).reversed());
        List<Ranked> out = new ArrayList<>(count);
        Set<String> campaigns = new HashSet<>();
        for (Ranked r : all) {
            if (out.size() == count) {
                break;
            }
            if (campaigns.add(r.ad().campaignKey())) {
                out.add(r);
            }
        }
        return out;
    }
}
