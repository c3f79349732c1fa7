package io.adreport.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The bid path's deadline ({@code serve.deadline.ms}) against a region server that is slow for
 * real: a region observer on the profiles table holds every Get for 30 s while the test says so.
 * The check and the ad request answer at about the deadline — far from the 30 s and from the
 * HBase client's timeout — decided from an empty profile, marked {@code "degraded": true} and
 * counted in /metrics; once the region server is fast again the same device is capped again.
 */
@ExtendWith(HBaseExtension.class)
class ServeDeadlineTest {
    /** Set while Gets on the profiles table are to hang; cleared to release them. */
    static volatile boolean slow;

    /** Holds each Get of the table it is attached to while {@link #slow} is set (at most 30 s). */
    public static final class SlowGets implements RegionCoprocessor, RegionObserver {
        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        @Override
        public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get, List<Cell> result) throws IOException {
            long until = System.nanoTime() + 30_000_000_000L;
            while (slow && System.nanoTime() < until) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Test
    void a_slow_region_server_costs_a_check_its_profile_at_the_deadline_not_the_answer(MiniHBase hbase) throws Exception {
        Instant now = Instant.parse("2026-10-20T12:00:00Z");
        try (ServingStack stack = new ServingStack(hbase, new MutableClock(now), Map.of("serve.deadline.ms", "300"))) {
            try (Admin admin = hbase.connection().getAdmin()) {
                admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(stack.layout.profilesTable()))
                        .setCoprocessor(SlowGets.class.getName()).build());
            }
            assertEquals(201, stack.put("/v1/campaigns/adv1/c1", stack.adv1, "{\"frequencyCaps\": [{\"max\": 1, \"window\": \"1h\"}]}")
                    .statusCode());
            assertEquals(201, stack.put("/v1/zones/s/z", stack.analyst, "{\"ads\": [{\"advertiser\": \"adv1\", \"campaign\": \"c1\", "
                    + "\"creative\": \"cr\", \"ecpmMicros\": 1000}]}").statusCode());
            stack.serving.registry().refresh();
            assertEquals(200, stack.ingest(ServingStack.impression("i1", now.minusSeconds(60), "dev-1", "adv1", "c1")).statusCode());
            assertEquals("capped 1h 1/1", stack.answer("dev-1", "adv1/c1", now), "fast region server: the cap holds");

            slow = true;
            try {
                long t0 = System.nanoTime();
                HttpResponse<String> check = stack.check(stack.adserver, "{\"device\": \"dev-1\", \"campaigns\": [\"adv1/c1\"]}");
                double checkSeconds = (System.nanoTime() - t0) / 1e9;
                assertEquals(200, check.statusCode(), check.body());
                JsonNode c = ServingStack.JSON.readTree(check.body());
                assertTrue(c.path("degraded").asBoolean(), check.body());
                assertEquals("degraded", c.path("campaigns").get(0).path("reason").asText(),
                        "decided as for an unidentified device (serve.unidentified=deny): " + check.body());
                assertTrue(checkSeconds < 15, "answered at about the deadline, not after the 30 s hold: " + checkSeconds + " s");

                t0 = System.nanoTime();
                HttpResponse<String> ad = ServingStack.HTTP.send(java.net.http.HttpRequest.newBuilder(
                                java.net.URI.create(stack.base + "/v1/serve/ad")).header("Authorization", "Bearer " + stack.adserver)
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"device\": \"dev-1\", \"site\": \"s\", \"zone\": \"z\"}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                double adSeconds = (System.nanoTime() - t0) / 1e9;
                assertEquals(200, ad.statusCode(), ad.body());
                JsonNode a = ServingStack.JSON.readTree(ad.body());
                assertTrue(a.path("degraded").asBoolean(), ad.body());
                assertEquals(0, a.path("ads").size(), "the only ad is capped and the device unknown: none chosen, " + ad.body());
                assertTrue(adSeconds < 15, "ad answered at about the deadline: " + adSeconds + " s");
                System.out.printf("deadline 300 ms, Gets held 30 s: check answered in %.3f s, ad in %.3f s%n", checkSeconds, adSeconds);
                String metrics = ServingStack.HTTP.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(stack.base + "/metrics"))
                        .GET().build(), HttpResponse.BodyHandlers.ofString()).body();
                assertTrue(metrics.lines().anyMatch(l -> l.startsWith("adreport_serve_degraded_total ") && !l.endsWith(" 0.0")
                        && !l.endsWith(" 0")), metrics.lines().filter(l -> l.contains("degraded")).toList().toString());
            } finally {
                slow = false;
            }
            HttpResponse<String> again = stack.check(stack.adserver, "{\"device\": \"dev-1\", \"campaigns\": [\"adv1/c1\"]}");
            assertFalse(ServingStack.JSON.readTree(again.body()).path("degraded").asBoolean(), again.body());
            assertEquals("capped 1h 1/1", stack.answer("dev-1", "adv1/c1", now), "fast again: the cap holds again");
        }
    }
}
