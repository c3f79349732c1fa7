package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.privacy.Deletion;
import io.adreport.schema.privacy.DeletionStep;
import io.adreport.schema.privacy.DeletionStore;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One device, three spellings of its advertising id (upper case with a trailing space, lower
 * case, upper case with a tab), through ingest, {@code /v1/serve/check} and privacy deletion as
 * the product composes them: one device everywhere (DeviceId's rule: trim, lower-case a UUID).
 */
@ExtendWith(HBaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeviceIdentityTest {
    private static final String AS_INGESTED = "6F1C0E2A-8B3D-4C5E-9F7A-1B2C3D4E5F60 ";
    private static final String AS_CHECKED = "6f1c0e2a-8b3d-4c5e-9f7a-1b2c3d4e5f60";
    private static final String AS_DELETED = "\t6F1C0E2A-8B3D-4C5E-9F7A-1B2C3D4E5F60";

    private EdgeStack stack;

    @BeforeAll
    void start(MiniHBase hbase) throws Exception {
        stack = new EdgeStack(hbase, Map.of());
    }

    @AfterAll
    void stop() {
        stack.close();
    }

    @Test
    void the_same_id_in_three_spellings_is_one_device_for_ingest_check_and_deletion() throws Exception {
        assertEquals(201, stack.api("PUT", "/v1/campaigns/adv1/idcap", stack.advertiser,
                "{\"frequencyCaps\": [{\"max\": 1, \"window\": \"1d\"}]}").statusCode());
        EdgeStack.await("the registry has the campaign's cap", () -> {
            try {
                return stack.apiJson("POST", "/v1/serve/check", stack.adserver,
                        "{\"device\": \"someone\", \"campaigns\": [\"adv1/idcap\"]}").path("campaigns").get(0).path("registered").asBoolean(true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        String event = "{\"type\":\"impression\",\"id\":\"id-1\",\"ts\":" + Instant.now().toEpochMilli() + ",\"device\":"
                + EdgeStack.JSON.writeValueAsString(AS_INGESTED) + ",\"advertiser\":\"adv1\",\"campaign\":\"idcap\",\"creative\":\"cr\","
                + "\"publisher\":\"site1\",\"zone\":\"z\",\"costMicros\":1000}";
        HttpResponse<String> r = stack.send("POST", stack.ingestBase + "/v1/events", null, event);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(1, EdgeStack.JSON.readTree(r.body()).path("accepted").asLong(), r.body());

        assertEquals("capped", stack.check(AS_CHECKED, "adv1/idcap"), "the view ingested under another spelling caps the device");
        assertEquals("capped", stack.check(AS_DELETED, "adv1/idcap"));
        assertEquals("allowed", stack.check("6f1c0e2a-8b3d-4c5e-9f7a-1b2c3d4e5f61", "adv1/idcap"), "another device is not capped");
        assertEquals("allowed", stack.check("Cookie-" + AS_CHECKED, "adv1/idcap"));

        String id = stack.apiJson("POST", "/v1/privacy/deletions", stack.privacy,
                "{\"device\": " + EdgeStack.JSON.writeValueAsString(AS_DELETED) + "}").path("id").asText();
        DeletionStore store = new DeletionStore(stack.hbase.connection(), stack.ctx.layout());
        AtomicReference<Deletion> seen = new AtomicReference<>();
        EdgeStack.await("the deletion reaches unreadable", () -> {
            try {
                Deletion d = store.get(id).orElseThrow();
                seen.set(d);
                return d.step().compareTo(DeletionStep.UNREADABLE) >= 0;
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(1, seen.get().eventsRewritten(), "the deletion found the event ingested under another spelling");
        assertTrue(seen.get().profileCells() > 0, "and the device's profile");
        assertEquals("allowed", stack.check(AS_CHECKED, "adv1/idcap"), "the deleted device's views are gone");
    }

    @Test
    void an_id_over_the_one_limit_is_refused_alike_by_every_entry() throws Exception {
        String tooLong = "x".repeat(129);
        HttpResponse<String> ingest = stack.send("POST", stack.ingestBase + "/v1/events", null,
                "{\"type\":\"impression\",\"id\":\"long-1\",\"ts\":" + Instant.now().toEpochMilli() + ",\"device\":\"" + tooLong + "\"}");
        assertTrue(ingest.body().contains("device: must be at most 128 characters"), ingest.body());
        HttpResponse<String> check = stack.api("POST", "/v1/serve/check", stack.adserver,
                "{\"device\": \"" + tooLong + "\", \"campaigns\": [\"adv1/x\"]}");
        assertEquals(400, check.statusCode());
        assertTrue(check.body().contains("must be at most 128 characters"), check.body());
        HttpResponse<String> deletion = stack.api("POST", "/v1/privacy/deletions", stack.privacy, "{\"device\": \"" + tooLong + "\"}");
        assertEquals(400, deletion.statusCode());
        assertTrue(deletion.body().contains("must be at most 128 characters"), deletion.body());
        assertEquals(200, stack.api("POST", "/v1/serve/check", stack.adserver,
                "{\"device\": \" " + "x".repeat(128) + " \", \"campaigns\": [\"adv1/x\"]}").statusCode(), "128 after trimming is fine");
    }
}
