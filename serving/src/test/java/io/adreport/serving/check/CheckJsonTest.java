package io.adreport.serving.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

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
 * The check's streaming JSON: every request body the streaming reader accepts reads the same as by
 * the tree reader that owns the rules (the oracle), and every other body gets the tree reader's
 * error; the answer is written field by field in the documented shape.
 */
class CheckJsonTest {
    private final CheckController controller = new CheckController(null, ServeConfig.of(Map.of("serve.max.campaigns", "3")),
            new Metrics());

    @Test
    void theStreamingReaderAcceptsOnlyWhatTheTreeReaderAcceptsAndReadsItTheSame() {
        List<String> bodies = List.of(
                "{\"device\":\"d1\",\"campaigns\":[\"a/b\",\"a/c\"]}",
                "{\"campaigns\":[\"a/b\"],\"device\":\"d1\"}",
                " {\"device\" : \"d\\u00e9\", \"extra\": {\"x\": [1, {\"y\": 2}]}, \"campaigns\": [\"a/b\", \"a/b\", \"x/y\"]} ",
                "{\"device\":\"\",\"campaigns\":[\"a/b\"]} trailing",
                "{\"device\":\"d1\",\"device\":\"d2\",\"campaigns\":[\"a/b\"]}",
                "{\"device\":\"d1\",\"campaigns\":[\"a/b\"],\"campaigns\":[\"c/d\"]}",
                "{\"device\":\"d1\",\"campaigns\":[\"a/b\",\"c/d\",\"e/f\",\"g/h\"]}",
                "{\"device\":\"d1\",\"campaigns\":[\"a/b\",\"a/b\",\"a/b\",\"a/b\"]}",
                "{\"device\":\"d1\",\"campaigns\":[]}",
                "{\"device\":\"d1\",\"campaigns\":[\"ab\"]}",
                "{\"device\":\"d1\",\"campaigns\":[\"/b\"]}",
                "{\"device\":\"d1\",\"campaigns\":[\"a/\"]}",
                "{\"device\":\"d1\",\"campaigns\":[\"a/b/c\"]}",
                "{\"device\":\"d1\",\"campaigns\":[7]}",
                "{\"device\":\"d1\",\"campaigns\":[null]}",
                "{\"device\":\"d1\",\"campaigns\":\"a/b\"}",
                "{\"device\":7,\"campaigns\":[\"a/b\"]}",
                "{\"device\":null,\"campaigns\":[\"a/b\"]}",
                "{\"device\":\"" + "x".repeat(257) + "\",\"campaigns\":[\"a/b\"]}",
                "{\"device\":\"" + "x".repeat(256) + "\",\"campaigns\":[\"a/b\"]}",
                "{\"campaigns\":[\"a/b\"]}",
                "{\"device\":\"d1\"}",
                "{\"device\":\"d1\",\"campaigns\":[\"a/b\"]",
                "{\"device\":\"d1\",\"campaigns\":[\"a/b\",]}",
                "[\"d1\"]",
                "null",
                "",
                "not json");
        int accepted = 0;
        for (String body : bodies) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            CheckController.Request fast = controller.parseStreaming(bytes);
            CheckController.Request tree;
            try {
                tree = controller.parseTree(bytes);
            } catch (HttpResponseException e) {
                assertNull(fast, "the streaming reader accepted what the tree reader refuses: " + body);
                continue;
            }
            if (fast != null) {
                accepted++;
                assertEquals(tree.device(), fast.device(), body);
                assertEquals(List.copyOf(tree.campaigns()), List.copyOf(fast.campaigns()), body);
            }
        }
        assertEquals(5, accepted, "the plainly valid bodies take the streaming path");
    }

    @Test
    void aBadBodyGetsTheErrorNamingTheField() {
        HttpResponseException e = org.junit.jupiter.api.Assertions.assertThrows(HttpResponseException.class,
                () -> controller.parseTree("{\"device\":\"d1\",\"campaigns\":[7]}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("campaigns: each entry must be \"advertiser/campaign\", not 7", e.getMessage());
        assertNotNull(controller.parseStreaming("{\"device\":\"d1\",\"campaigns\":[\"a/b\"]}".getBytes(StandardCharsets.UTF_8)));
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
        String json = written(new CapDecider.Decision("known", false, segments, verdicts));
        assertEquals("{\"device\":\"known\",\"stale\":false,\"segments\":{\"autos\":1.0,\"sports\":0.75},\"campaigns\":["
                + "{\"campaign\":\"adv1/c1\",\"allowed\":false,\"reason\":\"capped\",\"window\":\"5m\",\"max\":1,\"count\":1},"
                + "{\"campaign\":\"adv1/c2\",\"allowed\":false,\"reason\":\"paused\"},"
                + "{\"campaign\":\"adv1/c3\",\"allowed\":true},"
                + "{\"campaign\":\"adv9/none\",\"allowed\":true,\"registered\":false}]}", json);
        assertEquals("{\"device\":\"unidentified\",\"stale\":true,\"segments\":{},\"campaigns\":[]}",
                written(new CapDecider.Decision("unidentified", true, Map.of(), new LinkedHashMap<>())));
    }

    private static String written(CapDecider.Decision d) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        CheckController.write(d, out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
