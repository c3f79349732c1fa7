package io.adreport.serving.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CapWindow;
import io.adreport.schema.campaign.FrequencyCap;
import io.adreport.schema.metrics.Metrics;
import io.adreport.serving.ServeConfig;
import io.javalin.http.HttpResponseException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The check's JSON: a request body is read by the one parser that owns the rules (accepted bodies
 * read as written, every other body refused with a 400 naming the field); the answer is written
 * field by field in the documented shape.
 */
class CheckJsonTest {
    private final CheckController controller = new CheckController(null, ServeConfig.of(Map.of("serve.max.campaigns", "3")),
            new Metrics());

    @Test
    void validBodiesReadAsWrittenAndEveryOtherBodyIsRefusedNamingItsField() {
        Map<String, CheckController.Request> valid = new LinkedHashMap<>();
        valid.put("{\"device\":\"d1\",\"campaigns\":[\"a/b\",\"a/c\"]}", new CheckController.Request("d1", List.of("a/b", "a/c")));
        valid.put("{\"campaigns\":[\"a/b\"],\"device\":\"d1\"}", new CheckController.Request("d1", List.of("a/b")));
        valid.put(" {\"device\" : \"d\\u00e9\", \"extra\": {\"x\": [1, {\"y\": 2}]}, \"campaigns\": [\"a/b\", \"a/b\", \"x/y\"]} ",
                new CheckController.Request("d\u00e9", List.of("a/b", "x/y")));
        valid.put("{\"device\":\"" + "x".repeat(io.adreport.schema.event.DeviceId.MAX_LENGTH) + "\",\"campaigns\":[\"a/b\"]}",
                new CheckController.Request("x".repeat(io.adreport.schema.event.DeviceId.MAX_LENGTH), List.of("a/b")));
        valid.forEach((body, expected) -> assertEquals(expected, controller.parse(body.getBytes(StandardCharsets.UTF_8)), body));

        Map<String, String> refused = new LinkedHashMap<>(); // body -> the field its error names
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"a/b\",\"c/d\",\"e/f\",\"g/h\"]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"a/b\",\"a/b\",\"a/b\",\"a/b\"]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"ab\"]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"/b\"]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"a/\"]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"a/b/c\"]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[7]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":[null]}", "campaigns");
        refused.put("{\"device\":\"d1\",\"campaigns\":\"a/b\"}", "campaigns");
        refused.put("{\"device\":\"d1\"}", "campaigns");
        refused.put("{\"device\":7,\"campaigns\":[\"a/b\"]}", "device");
        refused.put("{\"device\":null,\"campaigns\":[\"a/b\"]}", "device");
        refused.put("{\"device\":\"" + "x".repeat(io.adreport.schema.event.DeviceId.MAX_LENGTH + 1) + "\",\"campaigns\":[\"a/b\"]}", "device");
        refused.put("{\"campaigns\":[\"a/b\"]}", "device");
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"a/b\"]", "body");
        refused.put("{\"device\":\"d1\",\"campaigns\":[\"a/b\",]}", "body");
        refused.put("[\"d1\"]", "body");
        refused.put("null", "body");
        refused.put("", "body");
        refused.put("not json", "body");
        refused.forEach((body, field) -> {
            HttpResponseException e = assertThrows(HttpResponseException.class, () -> controller.parse(body.getBytes(StandardCharsets.UTF_8)), body);
            assertEquals(400, e.getStatus(), body);
            assertTrue(e.getMessage().startsWith(field + ": "), body + " -> " + e.getMessage());
        });
    }

    @Test
    void aBadBodyGetsTheErrorNamingTheField() {
        HttpResponseException e = assertThrows(HttpResponseException.class,
                () -> controller.parse("{\"device\":\"d1\",\"campaigns\":[7]}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("campaigns: each entry must be \"advertiser/campaign\", not 7", e.getMessage());
    }

    @Test
    void theAnswerIsWrittenInTheDocumentedShape() throws Exception {
        FrequencyCap fiveMinutes = new FrequencyCap(1, CapWindow.parse("window", "5m"));
        Campaign capped = new Campaign("adv1", "c1", Campaign.Status.active, null, null, List.of(fiveMinutes), 0);
        Campaign paused = new Campaign("adv1", "c2", Campaign.Status.paused, null, null, List.of(fiveMinutes), 0);
        Map<String, CapDecider.Verdict> verdicts = new LinkedHashMap<>();
        verdicts.put("adv1/c1", new CapDecider.Verdict(Optional.of(capped), "capped", new CapCheck.Reached(fiveMinutes, 1)));
        verdicts.put("adv1/c2", new CapDecider.Verdict(Optional.of(paused), "paused", null));
        verdicts.put("adv1/c3", new CapDecider.Verdict(Optional.of(capped), null, null));
        verdicts.put("adv9/none", new CapDecider.Verdict(Optional.empty(), null, null));
        Map<String, Double> segments = new TreeMap<>(Map.of("sports", 0.75, "autos", 1.0));
        String json = written(new CapDecider.Decision("known", false, false, segments, verdicts));
        assertEquals("{\"device\":\"known\",\"stale\":false,\"degraded\":false,\"segments\":{\"autos\":1.0,\"sports\":0.75},\"campaigns\":["
                + "{\"campaign\":\"adv1/c1\",\"allowed\":false,\"reason\":\"capped\",\"window\":\"5m\",\"max\":1,\"count\":1},"
                + "{\"campaign\":\"adv1/c2\",\"allowed\":false,\"reason\":\"paused\"},"
                + "{\"campaign\":\"adv1/c3\",\"allowed\":true},"
                + "{\"campaign\":\"adv9/none\",\"allowed\":true,\"registered\":false}]}", json);
        assertEquals("{\"device\":\"unidentified\",\"stale\":true,\"degraded\":false,\"segments\":{},\"campaigns\":[]}",
                written(new CapDecider.Decision("unidentified", true, false, Map.of(), new LinkedHashMap<>())));
        assertEquals("{\"device\":\"unknown\",\"stale\":false,\"degraded\":true,\"segments\":{},\"campaigns\":[]}",
                written(new CapDecider.Decision("unknown", false, true, Map.of(), new LinkedHashMap<>())));
    }

    private static String written(CapDecider.Decision d) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        CheckController.write(d, out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
