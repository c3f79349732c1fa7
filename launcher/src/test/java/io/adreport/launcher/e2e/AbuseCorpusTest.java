package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.schema.trust.BeaconKeys;
import io.adreport.schema.trust.BeaconSigner;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The abuse corpus: forged, altered, stale and replayed beacons and unauthenticated
 * server-to-server calls against the running ingest and serving endpoints, composed as
 * {@code bin/adreport} composes them, with {@code ingest.require.key=true} and two beacon keys
 * (k2 signs, k1 still verifies). Each attempt must be answered with its reason and store
 * nothing: afterwards the raw rows, the campaign's counters (live counts included, which the
 * report API reads with its internal key), its spend and the device's view history equal the
 * recount of the genuine beacons this test fired (one impression, one click), kept here. A
 * genuine beacon of a campaign paused after it was served is refused too ({@code campaign-paused}):
 * nothing counted, spent or recorded as a view for it.
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AbuseCorpusTest {
    private static final String K1 = "k1:0123456789abcdef-key-one";
    private static final String K2 = "k2:0123456789abcdef-key-two";
    private static final String RETIRED = "k0:0123456789abcdef-key-old";
    private static final String VICTIM = "victim-device";
    private static final String OTHER = "other-device";

    private EdgeStack stack;
    /** Refusals this test caused, by reason: what /metrics must show. */
    private final Map<String, Integer> refusals = new LinkedHashMap<>();

    @BeforeAll
    void start(MiniHBase hbase) throws Exception {
        stack = new EdgeStack(hbase, Map.of("beacon.keys", K2 + "," + K1, "ingest.require.key", "true", "spend.flush.ms", "50"));
    }

    @AfterAll
    void stop() {
        stack.close();
    }

    @Test
    void every_forgery_is_answered_with_its_reason_and_changes_nothing() throws Exception {
        assertEquals(201, stack.api("PUT", "/v1/campaigns/adv1/abuse", stack.advertiser,
                "{\"frequencyCaps\": [{\"max\": 2, \"window\": \"1d\"}], \"budget\": {\"dailyMicros\": 1000000000}}").statusCode());
        assertEquals(201, stack.api("PUT", "/v1/zones/site1/top", stack.publisher,
                "{\"ads\": [{\"advertiser\": \"adv1\", \"campaign\": \"abuse\", \"creative\": \"cr1\", \"ecpmMicros\": 2000000}]}").statusCode());
        // a second campaign, alone in its zone, served once and then paused
        assertEquals(201, stack.api("PUT", "/v1/campaigns/adv1/halted", stack.advertiser,
                "{\"budget\": {\"dailyMicros\": 1000000000}}").statusCode());
        assertEquals(201, stack.api("PUT", "/v1/zones/site1/side", stack.publisher,
                "{\"ads\": [{\"advertiser\": \"adv1\", \"campaign\": \"halted\", \"creative\": \"cr2\", \"ecpmMicros\": 3000000}]}")
                .statusCode());
        String halted = query(serve(VICTIM, "side").path("beacons").path("impression").asText());
        assertEquals(200, stack.api("PUT", "/v1/campaigns/adv1/halted", stack.advertiser,
                "{\"status\": \"paused\", \"budget\": {\"dailyMicros\": 1000000000}}").statusCode());
        EdgeStack.await("the aggregator knows the campaign is paused", () -> metric("adreport_beacons_paused_campaigns") == 1);
        JsonNode ad = serve(VICTIM);
        String imp = query(ad.path("beacons").path("impression").asText());
        String click = query(ad.path("beacons").path("click").asText());
        String victimToken = EdgeStack.expectedHash(VICTIM);
        assertTrue(imp.contains("dt=" + victimToken) && !imp.contains(VICTIM), "the URL carries the device's hash, never its id: " + imp);
        assertTrue(imp.contains("kid=k2") && imp.contains("costMicros=2000"), imp);

        // the genuine beacons: stored once, then duplicates
        assertEquals("stored", beacon(imp));
        assertEquals("duplicate", beacon(imp));
        String clickTs = "&ts=" + Instant.now().toEpochMilli();
        assertEquals("stored", beacon(click + clickTs));
        assertEquals("duplicate", beacon(click + clickTs));
        long rawRows = 2;
        long impressions = 1;
        long spend = 2000;
        settled(rawRows, impressions, spend);
        long[] refusedBefore = refusedInMetrics();

        String impId = param(imp, "id");
        // forged cost (with a new id, so it is not a duplicate)
        refused("bad-signature", imp.replace("costMicros=2000", "costMicros=2000000").replace("id=" + impId, "id=" + impId + "x"));
        // another campaign, another advertiser
        refused("bad-signature", imp.replace("campaign=abuse", "campaign=rival").replace("id=" + impId, "id=" + impId + "y"));
        refused("bad-signature", imp.replace("advertiser=adv1", "advertiser=adv2").replace("id=" + impId, "id=" + impId + "z"));
        // a field added that the signature does not cover
        refused("bad-signature", imp.replace("id=" + impId, "id=" + impId + "w") + "&valueMicros=5");
        // the genuine beacon replayed for another device
        refused("bad-signature", imp.replace(victimToken, EdgeStack.expectedHash(OTHER)));
        // a valid key id, but not the one that signed
        refused("bad-signature", imp.replace("kid=k2", "kid=k1"));
        // a parameter given twice
        refused("repeated-parameter", imp + "&costMicros=9");
        // signed by a key that was retired (no longer listed), and by an unknown key id
        refused("unknown-key", signedBy(RETIRED, Instant.now(), "retired"));
        refused("unknown-key", imp.replace("kid=k2", "kid=k9"));
        // a signature that expired an hour ago, one whose expiry is a day ahead
        refused("expired", signedBy(K1, Instant.now().minus(Duration.ofHours(2)), "stale"));
        refused("future-expiry", signedBy(K2, Instant.now().plus(Duration.ofDays(1)), "future"));
        // a click whose own time lies after the signed expiry
        refused("click-after-expiry", click + "&ts="
                + Instant.now().plus(Duration.ofHours(2)).toEpochMilli());
        // a genuine beacon of a campaign paused after it was served: no spend, no view, no count
        refused("campaign-paused", halted);
        // a beacon written by hand, and one whose device token is not a hash
        refused("unsigned", "type=impression&id=hand-1&ts=" + Instant.now().toEpochMilli() + "&advertiser=adv1&campaign=abuse&costMicros=1");
        refused("bad-device-token", imp.replace(victimToken, "not-a-hash"));

        // a 1 MB query string: refused by the HTTP layer before any handler, nothing read
        HttpResponse<byte[]> huge = stack.fire(stack.ingestBase + "/v1/pixel?" + imp + "&pad=" + "a".repeat(1 << 20));
        assertTrue(huge.statusCode() == 414 || huge.statusCode() == 431, "1 MB query string: " + huge.statusCode());

        // the internal route without the cluster's credential, or with a key of another role
        String liveBody = "{}";
        for (String key : new String[] {null, stack.analyst, stack.ingestKey, "ak_made-up"}) {
            HttpResponse<String> live = stack.send("POST", stack.ingestBase + "/internal/live-counters", key, liveBody);
            assertEquals(401, live.statusCode(), "live counters with " + key + ": " + live.body());
            assertTrue(live.body().contains("internal"), live.body());
        }
        // ingest without a key of role ingest
        String event = "{\"type\":\"impression\",\"id\":\"posted-1\",\"ts\":" + Instant.now().toEpochMilli()
                + ",\"advertiser\":\"adv1\",\"campaign\":\"abuse\",\"costMicros\":999999}";
        for (String key : new String[] {null, stack.analyst, stack.adserver}) {
            HttpResponse<String> post = stack.send("POST", stack.ingestBase + "/v1/events", key, event);
            assertEquals(401, post.statusCode(), "POST /v1/events with " + key + ": " + post.body());
            assertTrue(post.body().contains("role ingest"), post.body());
        }

        // nothing of it was stored or counted
        Thread.sleep(500); // longer than spend.flush.ms: a forged cost would have reached the spend rows
        settled(rawRows, impressions, spend);
        assertEquals(0, stack.campaignCounts("halted")[0], "the paused campaign's impressions");
        assertEquals(0, stack.apiJson("GET", "/v1/campaigns/adv1/halted/budget", stack.advertiser, null).path("spentTodayMicros").asLong(),
                "the paused campaign's spend");
        assertEquals("allowed", stack.check(VICTIM, "adv1/abuse"), "one view of two allowed: no forged view was recorded");
        assertEquals("allowed", stack.check(OTHER, "adv1/abuse"));
        long[] refusedAfter = refusedInMetrics();
        Map<String, Long> byReason = refusedByReason();
        for (Map.Entry<String, Integer> e : refusals.entrySet()) {
            assertEquals((long) e.getValue(), byReason.getOrDefault(e.getKey(), 0L), "refusals counted for " + e.getKey());
        }
        assertEquals(refusals.values().stream().mapToInt(Integer::intValue).sum(), refusedAfter[0] - refusedBefore[0]);

        // a trusted collector with an ingest key is let through
        HttpResponse<String> trusted = stack.send("POST", stack.ingestBase + "/v1/events", stack.ingestKey,
                event.replace("999999", "500").replace("\"campaign\":\"abuse\"", "\"campaign\":\"collector\""));
        assertEquals(200, trusted.statusCode(), trusted.body());
        assertEquals(1, EdgeStack.JSON.readTree(trusted.body()).path("accepted").asLong());
        assertEquals(rawRows + 1, stack.rawRows());
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private JsonNode serve(String device) throws Exception {
        return serve(device, "top");
    }

    private JsonNode serve(String device, String zone) throws Exception {
        JsonNode[] ad = new JsonNode[1];
        EdgeStack.await("the ad server serves the campaign", () -> {
            try {
                JsonNode a = stack.apiJson("POST", "/v1/serve/ad", stack.adserver,
                        "{\"site\": \"site1\", \"zone\": \"" + zone + "\", \"device\": \"" + device + "\"}").path("ads");
                ad[0] = a.isEmpty() ? null : a.get(0);
                return ad[0] != null;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        return ad[0];
    }

    /** A beacon as the ad server would sign it, but with {@code key} at {@code at}. */
    private static String signedBy(String key, Instant at, String id) {
        BeaconSigner s = new BeaconSigner(BeaconKeys.parse(key), Duration.ofHours(1), Clock.fixed(at, ZoneOffset.UTC));
        return s.query(List.of(Map.entry("type", "impression"), Map.entry("id", id), Map.entry("ts", Long.toString(Instant.now().toEpochMilli())),
                Map.entry("advertiser", "adv1"), Map.entry("campaign", "abuse"), Map.entry("costMicros", "2000")));
    }

    private static String query(String url) {
        return url.substring(url.indexOf('?') + 1);
    }

    private static String param(String query, String name) {
        Matcher m = Pattern.compile("(?:^|&)" + name + "=([^&]*)").matcher(query);
        assertTrue(m.find(), name + " in " + query);
        return m.group(1);
    }

    /** Fires a beacon; the status header ({@code stored}, {@code duplicate}, {@code refused}). */
    private String beacon(String query) throws Exception {
        HttpResponse<byte[]> r = stack.fire(stack.ingestBase + "/v1/pixel?" + query);
        EdgeStack.assertGif(r);
        return r.headers().firstValue("X-Adreport-Beacon").orElse("");
    }

    private void refused(String reason, String query) throws Exception {
        HttpResponse<byte[]> r = stack.fire(stack.ingestBase + "/v1/pixel?" + query);
        assertEquals(200, r.statusCode(), "a refused beacon is still answered with the GIF");
        EdgeStack.assertGif(r);
        assertEquals("refused", r.headers().firstValue("X-Adreport-Beacon").orElse(""), query);
        assertEquals(reason, r.headers().firstValue("X-Adreport-Beacon-Reason").orElse(""), query);
        refusals.merge(reason, 1, Integer::sum);
    }

    /** Raw rows, the campaign's live counters and its spend equal the recount (spend once flushed). */
    private void settled(long rawRows, long impressions, long spend) throws Exception {
        assertEquals(rawRows, stack.rawRows(), "raw rows");
        long[] counts = stack.campaignCounts("abuse");
        assertEquals(impressions, counts[0], "impressions of the campaign (live counts included)");
        assertEquals(spend, counts[1], "spend of the campaign in its counters");
        EdgeStack.await("the spend rows hold " + spend, () -> {
            try {
                return stack.apiJson("GET", "/v1/campaigns/adv1/abuse/budget", stack.advertiser, null).path("spentTodayMicros").asLong() == spend;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private Map<String, Long> refusedByReason() throws Exception {
        String metrics = stack.send("GET", stack.ingestBase + "/metrics", null, null).body();
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = Pattern.compile("adreport_beacons_refused_total\\{reason=\"([a-z-]+)\"} ([0-9.]+)").matcher(metrics);
        while (m.find()) {
            out.put(m.group(1), (long) Double.parseDouble(m.group(2)));
        }
        assertFalse(out.isEmpty(), "the refusal counter is exported: " + metrics);
        return out;
    }

    /** A metric of the ingest's {@code /metrics} without labels (-1 when absent). */
    private long metric(String name) {
        try {
            Matcher m = Pattern.compile("(?m)^" + name + " ([0-9.]+)").matcher(stack.send("GET", stack.ingestBase + "/metrics", null, null).body());
            return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private long[] refusedInMetrics() throws Exception {
        return new long[] {refusedByReason().values().stream().mapToLong(Long::longValue).sum()};
    }
}
