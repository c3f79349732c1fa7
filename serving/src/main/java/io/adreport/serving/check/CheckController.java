package io.adreport.serving.check;

import static io.adreport.http.ErrorMapper.badParam;

import io.adreport.http.JsonBody;
import io.adreport.http.RecordSchemas;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.event.DeviceId;
import io.adreport.schema.metrics.Metrics;
import io.adreport.serving.ServeConfig;
import io.javalin.http.Context;
import io.javalin.http.ContentType;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /v1/serve/check}: may these campaigns be shown to this device now?
 *
 * <pre>request  {"device": "raw device id", "campaigns": ["adv/camp", ... up to serve.max.campaigns]}
 * response {"device": "known|new|unidentified|unknown", "stale": false, "degraded": false, "segments": {"s1": 0.9},
 *           "campaigns": [{"campaign": "adv/camp", "allowed": false, "reason": "capped",
 *                          "window": "5m", "max": 1, "count": 1}, ...]}</pre>
 *
 * One Get per request ({@link ProfileReader}); campaigns come from the in-memory registry copy.
 * {@code reason} is {@code capped} (with the first reached window, its max and count),
 * {@code paused} / {@code not-serving} (outside start..end), or {@code unidentified} (the device
 * id names no device and {@code serve.unidentified=deny} on a capped campaign). An unregistered
 * campaign has no caps: allowed, {@code "registered": false}. The raw device id is hashed on
 * arrival and never stored or logged. Only {@code adserver} (and analyst) keys may call it.
 *
 * <p><b>JSON.</b> The request is read by one parser ({@link #parse}, a tree: it owns the rules and
 * names the field in its error; reading the body is ~2% of a check's CPU, so a second, streaming
 * reader of the same format was not worth its copy of the rules). The answer, the larger part, is
 * written with a streaming generator (no intermediate records or maps). Fields other than
 * {@code device} and {@code campaigns} are ignored.
 */
public final class CheckController {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Writes without closing the response's stream (the server owns it). */
    private static final JsonFactory JSON = MAPPER.getFactory().copy().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    /** Largest body read directly at its declared length (500 campaigns of 30 characters are 16 KB). */
    private static final int MAX_DIRECT_BODY = 64 * 1024;

    private final CapDecider decider;
    private final int maxCampaigns;
    private final Metrics.Histogram latency;

    public CheckController(CapDecider decider, ServeConfig config, Metrics metrics) {
        this.decider = decider;
        this.maxCampaigns = config.maxCampaigns();
        this.latency = metrics.histogram("adreport_serve_check_seconds", "Latency of POST /v1/serve/check (parse, one Get, answer)",
                Metrics.LATENCY_BUCKETS);
    }

    public void check(Context ctx) throws IOException {
        long start = System.nanoTime();
        CapDecider.requireServingRole(ctx);
        Request req = parse(body(ctx));
        CapDecider.Decision d = decider.decide(req.device(), req.campaigns());
        ctx.contentType(ContentType.APPLICATION_JSON);
        write(d, ctx.outputStream()); // Javalin's stream: compressed when the client asks for it, as a result would be
        latency.observeNanos(System.nanoTime() - start);
    }

    /**
     * The request body, read into an array of exactly its declared length (a check's body is about
     * a kilobyte; the generic reader starts with 8 KB buffers). Without a length, or beyond
     * {@link #MAX_DIRECT_BODY}, the generic reader and its request-size limit apply.
     */
    private static byte[] body(Context ctx) throws IOException {
        long length = ctx.req().getContentLengthLong();
        if (length < 0 || length > MAX_DIRECT_BODY) {
            return ctx.bodyAsBytes();
        }
        return ctx.req().getInputStream().readNBytes((int) length);
    }

    /**
     * The answer: {@code device}, {@code stale}, {@code segments}, then per campaign
     * {@code campaign}, {@code allowed} and whichever of {@code reason}, {@code window},
     * {@code max}, {@code count}, {@code registered} apply, in that order.
     */
    static void write(CapDecider.Decision d, OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("device", d.device());
            g.writeBooleanField("stale", d.stale());
            g.writeBooleanField("degraded", d.degraded());
            g.writeObjectFieldStart("segments");
            for (Map.Entry<String, Double> e : d.segments().entrySet()) {
                g.writeFieldName(e.getKey());
                g.writeNumber(e.getValue());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("campaigns");
            for (Map.Entry<String, CapDecider.Verdict> e : d.verdicts().entrySet()) {
                CapDecider.Verdict v = e.getValue();
                g.writeStartObject();
                g.writeStringField("campaign", e.getKey());
                g.writeBooleanField("allowed", v.allowed());
                if (v.reason() != null) {
                    g.writeStringField("reason", v.reason());
                }
                if (v.reached() != null) {
                    g.writeStringField("window", v.reached().cap().window().text());
                    g.writeNumberField("max", v.reached().cap().max());
                    g.writeNumberField("count", v.reached().count());
                }
                if (v.allowed() && v.campaign().isEmpty()) {
                    g.writeBooleanField("registered", false);
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    /** The record the request body is read as, for the OpenAPI document. */
    public static Class<?> requestType() {
        return Request.class;
    }

    /** The record that documents the streamed answer, for the OpenAPI document. */
    public static Class<?> answerType() {
        return Answer.class;
    }

    /** The request (fields other than these two are ignored). */
    @RecordSchemas.Name("CheckRequest")
    record Request(String device, List<String> campaigns) {
    }

    /**
     * What {@link #write} writes, for the OpenAPI document (the answer itself is streamed, without
     * records): change one and the other together; the route test validates real answers against it.
     */
    @RecordSchemas.Name("CheckAnswer")
    record Answer(String device, boolean stale, boolean degraded, Map<String, Double> segments, List<CampaignAnswer> campaigns) {
    }

    /** One campaign's verdict: {@code reason} when not allowed; {@code window}, {@code max}, {@code count} when capped. */
    @RecordSchemas.Name("CheckVerdict")
    record CampaignAnswer(String campaign, boolean allowed, @RecordSchemas.Nullable String reason, @RecordSchemas.Nullable String window,
                          Integer max, Integer count, Boolean registered) {
    }

    /** The request by the rules: a clear error naming the field when one breaks. */
    Request parse(byte[] body) {
        JsonNode root = JsonBody.object(body, "{\"device\", \"campaigns\"}");
        JsonNode d = root.get("device");
        if (d == null || !d.isTextual()) {
            throw badParam("device", "must be a string: " + DeviceId.RULE);
        }
        String device;
        try {
            device = DeviceId.normalize(d.asText());
        } catch (IllegalArgumentException e) {
            throw badParam("device", e.getMessage());
        }
        JsonNode cs = root.get("campaigns");
        if (cs == null || !cs.isArray() || cs.isEmpty() || cs.size() > maxCampaigns) {
            throw badParam("campaigns", "must be an array of 1.." + maxCampaigns + " \"advertiser/campaign\" strings");
        }
        Set<String> keys = new LinkedHashSet<>();
        for (JsonNode c : cs) {
            String k = c.isTextual() ? c.asText() : "";
            int slash = k.indexOf('/');
            if (slash <= 0 || slash == k.length() - 1 || k.indexOf('/', slash + 1) >= 0) {
                throw badParam("campaigns", "each entry must be \"advertiser/campaign\", not " + c);
            }
            keys.add(k);
        }
        return new Request(device, List.copyOf(keys));
    }
}
