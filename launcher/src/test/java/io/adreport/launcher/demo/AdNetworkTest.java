package io.adreport.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class AdNetworkTest {
    private static final Pattern DIMENSION_VALUE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    @Test
    void the_network_has_five_advertisers_and_eight_publishers_with_valid_ids() {
        List<String> advertisers = DemoTraffic.advertiserIds();
        List<String> publishers = DemoTraffic.publisherIds();
        assertEquals(5, advertisers.size());
        assertEquals(8, publishers.size());
        assertEquals(5, new HashSet<>(advertisers).size());
        assertEquals(8, new HashSet<>(publishers).size());
        for (String id : concat(advertisers, publishers)) {
            assertTrue(DIMENSION_VALUE.matcher(id).matches(), id);
        }
        AdNetwork.DEFAULT.advertisers().forEach(a -> {
            assertTrue(a.campaigns().size() >= 2, a.id());
            a.campaigns().forEach(c -> {
                assertTrue(c.creatives().size() >= 2, c.id());
                c.creatives().forEach(cr -> assertTrue(DIMENSION_VALUE.matcher(cr.id()).matches(), cr.id()));
            });
        });
        AdNetwork.DEFAULT.publishers().forEach(p -> assertTrue(p.zones().size() >= 2, p.id()));
    }

    @Test
    void every_creative_in_every_zone_is_clicked_between_one_in_a_thousand_and_one_in_fifty() {
        double lowest = 1;
        double highest = 0;
        for (AdNetwork.Advertiser a : AdNetwork.DEFAULT.advertisers()) {
            for (AdNetwork.Campaign c : a.campaigns()) {
                for (AdNetwork.Creative cr : c.creatives()) {
                    for (AdNetwork.Publisher p : AdNetwork.DEFAULT.publishers()) {
                        for (AdNetwork.Zone z : p.zones()) {
                            double ctr = AdNetwork.clickThroughRate(cr, z);
                            assertTrue(ctr >= 0.001 && ctr <= 0.02, cr.id() + " in " + z.id() + ": " + ctr);
                        }
                    }
                    lowest = Math.min(lowest, cr.ctr());
                    highest = Math.max(highest, cr.ctr());
                }
            }
        }
        assertTrue(highest / lowest >= 5, "creatives should differ in CTR, got " + lowest + " .. " + highest);
    }

    @Test
    void popularity_is_skewed_towards_the_first_ranks() {
        SplittableRandom rng = new SplittableRandom(1);
        Map<String, Integer> byAdvertiser = new HashMap<>();
        Map<String, Integer> byCountry = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            byAdvertiser.merge(AdNetwork.DEFAULT.pickCreative(rng).advertiser(), 1, Integer::sum);
            byCountry.merge(AdNetwork.DEFAULT.pickDevice(rng).country(), 1, Integer::sum);
        }
        List<String> advertisers = DemoTraffic.advertiserIds();
        int first = byAdvertiser.get(advertisers.get(0));
        int last = byAdvertiser.get(advertisers.get(advertisers.size() - 1));
        assertTrue(first > 3 * last, "first " + first + " vs last " + last);
        String top = byCountry.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        assertEquals("US", top);
        assertTrue(byCountry.size() >= 10, "countries seen: " + byCountry.keySet());
    }

    @Test
    void a_device_always_reports_the_same_country_and_device_type() {
        Set<String> types = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertEquals(AdNetwork.DEFAULT.device(i), AdNetwork.DEFAULT.device(i));
            types.add(AdNetwork.DEFAULT.device(i).deviceType());
        }
        assertTrue(types.containsAll(Set.of("mobile", "desktop", "tablet")), types.toString());
    }

    @Test
    void zipf_ranks_cover_the_unit_interval() {
        AdNetwork.Zipf z = new AdNetwork.Zipf(4, 1.0);
        assertEquals(0, z.at(0.0));
        assertEquals(3, z.at(0.999999));
        // weights 1, 1/2, 1/3, 1/4 of 25/12: rank 0 takes 12/25 of the interval
        assertEquals(0, z.at(0.47));
        assertEquals(1, z.at(0.49));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
