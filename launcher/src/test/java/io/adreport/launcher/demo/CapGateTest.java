package io.adreport.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The simulated ad server obeys the cap check: a refused (device, campaign) is never shown. */
class CapGateTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void refusedCampaignsAreNeverShownAndTheSlotGoesToAnother() throws Exception {
        // a gate with its own rule: each device may see each campaign at most twice (an oracle in the test)
        Map<String, Integer> seen = new HashMap<>();
        int[] refused = {0};
        CapGate twice = (device, advertiser, campaign) -> {
            String k = device + "|" + advertiser + "/" + campaign;
            if (seen.getOrDefault(k, 0) >= 2) {
                refused[0]++;
                return false;
            }
            seen.merge(k, 1, Integer::sum);
            return true;
        };
        BeaconGenerator g = new BeaconGenerator(AdNetwork.DEFAULT, new SplittableRandom(7), "t-", 0, 0, 0, twice);
        Map<String, Integer> shown = new HashMap<>();
        int impressions = 0;
        Instant t = Instant.parse("2026-11-30T00:00:00Z");
        for (int i = 0; i < 20; i++) {
            for (String line : g.batch(t.plusSeconds(60L * i), t.plusSeconds(60L * (i + 1)), 2_000).lines()) {
                JsonNode n = JSON.readTree(line);
                if (n.path("type").asText().equals("impression")) {
                    impressions++;
                    shown.merge(n.path("device").asText() + "|" + n.path("advertiser").asText() + "/" + n.path("campaign").asText(),
                            1, Integer::sum);
                }
            }
        }
        assertTrue(refused[0] > 0, "the heavy devices reach the cap in 40,000 slots");
        assertTrue(impressions > 30_000, "refused slots mostly go to another campaign: " + impressions);
        shown.forEach((k, n) -> assertTrue(n <= 2, k + " shown " + n + " times"));
        assertEquals(seen, shown, "every allowed check became exactly one impression");
    }
}
