package io.adreport.serving.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.inventory.Ad;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AdSelectorTest {
    private static Ad ad(String campaign, long ecpm, String... keywords) {
        return new Ad("adv", campaign, campaign + "-cr", ecpm, List.of(keywords));
    }

    @Test
    void highestEcpmFirstAndOneAdPerCampaign() {
        List<Ad> ads = List.of(ad("a", 1000), ad("b", 3000), ad("c", 2000), new Ad("adv", "b", "b-cr2", 2500, List.of()));
        var ranked = AdSelector.rank(ads, Set.of(), 3, new SplittableRandom(1));
        assertEquals(List.of("b-cr", "c-cr", "a-cr"), ranked.stream().map(r -> r.ad().creative()).toList());
    }

    @Test
    void keywordScoreIsEcpmTimesLogOfOnePointOnePlusMatches() {
        Ad matching = ad("m", 1000, "shoes", "running", "red");
        Ad rich = ad("r", 2000, "cars");
        Set<String> kw = Set.of("shoes", "running");
        assertEquals(1000 * Math.log(3.1), AdSelector.score(matching, kw), 1e-9);
        assertEquals(2000 * Math.log(1.1), AdSelector.score(rich, kw), 1e-9);
        assertEquals("m", AdSelector.rank(List.of(rich, matching), kw, 1, new SplittableRandom(2)).get(0).ad().campaign());
        assertEquals("r", AdSelector.rank(List.of(rich, matching), Set.of(), 1, new SplittableRandom(2)).get(0).ad().campaign());
    }

    @Test
    void tiesAreUniformlyRandom_chiSquare() {
        List<Ad> ads = List.of(ad("x", 5000), ad("y", 5000), ad("z", 5000), ad("low", 10));
        SplittableRandom rng = new SplittableRandom(12345);
        Map<String, Integer> wins = new HashMap<>();
        int n = 30_000;
        for (int i = 0; i < n; i++) {
            wins.merge(AdSelector.rank(ads, Set.of(), 1, rng).get(0).ad().campaign(), 1, Integer::sum);
        }
        assertEquals(Set.of("x", "y", "z"), wins.keySet(), "the lower bid never wins: " + wins);
        double expected = n / 3.0;
        double chi2 = wins.values().stream().mapToDouble(o -> (o - expected) * (o - expected) / expected).sum();
        assertTrue(chi2 < 13.82, "chi-square " + chi2 + " over 2 degrees of freedom (p = 0.001 bound 13.82): " + wins);
    }
}
