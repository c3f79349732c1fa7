package io.adreport.serving.check;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.metrics.Metrics;
import io.adreport.serving.ServeConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /v1/serve/check}: may these campaigns be shown to this device now?
 *
 * <pre>request  {"device": "raw device id", "campaigns": ["adv/camp", ... up to serve.max.campaigns]}
 * response {"device": "known|new|unidentified", "stale": false, "segments": {"s1": 0.9},
 *           "campaigns": [{"campaign": "adv/camp", "allowed": false, "reason": "capped",
 *                          "window": "5m", "max": 1, "count": 1}, ...]}</pre>
 *
 * One Get per request ({@link ProfileReader}); campaigns come from the in-memory registry copy.
 * {@code reason} is {@code capped} (with the first reached window, its max and count),
 * {@code paused} / {@code not-serving} (outside start..end), or {@code unidentified} (the device
 * id names no device and {@code serve.unidentified=deny} on a capped campaign). An unregistered
 * campaign has no caps: allowed, {@code "registered": false}. The raw device id is hashed on
 * arrival and never stored or logged. Only {@code adserver} (and analyst) keys may call it.
 */
public final class CheckController {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int MAX_DEVICE_LENGTH = 256;

    private final CapDecider decider;
    private final int maxCampaigns;
    private final Metrics.Histogram latency;

    public CheckController(CapDecider decider, ServeConfig config, Metrics metrics) {
        this.decider = decider;
        this.maxCampaigns = config.maxCampaigns();
        this.latency = metrics.histogram("adreport_serve_check_seconds", "Latency of POST /v1/serve/check (parse, one Get, answer)",
                new double[] {0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5});
    }

    /** One campaign's answer. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Answer(String campaign, boolean allowed, String reason, String window, Integer max, Integer count,
                         Boolean registered) {
    }

    /** The whole answer. */
    public record Response(String device, boolean stale, Map<String, Double> segments, List<Answer> campaigns) {
    }

    public void check(Context ctx) throws IOException {
        long start = System.nanoTime();
        CapDecider.requireServingRole(ctx);
        Request req = parse(ctx.bodyAsBytes());
        CapDecider.Decision d = decider.decide(req.device(), req.campaigns());
        List<Answer> answers = new ArrayList<>(d.verdicts().size());
        d.verdicts().forEach((key, v) -> {
            Boolean registered = v.campaign().isPresent() ? null : Boolean.FALSE;
            if (v.reached() != null) {
                answers.add(new Answer(key, false, v.reason(), v.reached().cap().window().text(), v.reached().cap().max(),
                        v.reached().count(), null));
            } else {
                answers.add(new Answer(key, v.allowed(), v.reason(), null, null, null, v.allowed() ? registered : null));
            }
        });
        ctx.json(new Response(d.device(), d.stale(), d.segments(), answers));
        latency.observeNanos(System.nanoTime() - start);
    }

    record Request(String device, List<String> campaigns) {
    }

    private Request parse(byte[] body) {
        JsonNode root;
        try {
            root = MAPPER.readTree(body);
        } catch (IOException e) {
            throw bad("body", "must be a JSON object {\"device\", \"campaigns\"}");
        }
        if (root == null || !root.isObject()) {
            throw bad("body", "must be a JSON object {\"device\", \"campaigns\"}");
        }
        JsonNode d = root.get("device");
        if (d == null || !d.isTextual() || d.asText().length() > MAX_DEVICE_LENGTH) {
            throw bad("device", "must be a string of at most " + MAX_DEVICE_LENGTH + " characters");
        }
        JsonNode cs = root.get("campaigns");
        if (cs == null || !cs.isArray() || cs.isEmpty() || cs.size() > maxCampaigns) {
            throw bad("campaigns", "must be an array of 1.." + maxCampaigns + " \"advertiser/campaign\" strings");
        }
        Set<String> keys = new LinkedHashSet<>();
        for (JsonNode c : cs) {
            String k = c.isTextual() ? c.asText() : "";
            int slash = k.indexOf('/');
            if (slash <= 0 || slash == k.length() - 1 || k.indexOf('/', slash + 1) >= 0) {
                throw bad("campaigns", "each entry must be \"advertiser/campaign\", not " + c);
            }
            keys.add(k);
        }
        return new Request(d.asText(), List.copyOf(keys));
    }

    private static HttpResponseException bad(String field, String rule) {
        return new HttpResponseException(400, field + ": " + rule, Map.of("parameter", field));
    }
}
