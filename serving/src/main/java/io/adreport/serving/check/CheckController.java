package io.adreport.serving.check;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.report.api.BearerAuth;
import io.adreport.report.auth.AccessDenied;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.ServeConfig;
import io.adreport.serving.registry.CampaignRegistry;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hbase.client.Connection;

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

    private final ProfileReader reader;
    private final CampaignRegistry registry;
    private final DeviceHasher hasher;
    private final UnidentifiedDevices unidentified;
    private final ServeConfig config;
    private final Clock clock;
    private final Metrics.Histogram latency;
    private final Metrics.Counter staleReads;

    public CheckController(Connection connection, TableLayout layout, CampaignRegistry registry, DeviceHasher hasher,
                           UnidentifiedDevices unidentified, ServeConfig config, Clock clock, Metrics metrics) {
        this.reader = new ProfileReader(connection, layout, config.timelineReads());
        this.registry = registry;
        this.hasher = hasher;
        this.unidentified = unidentified;
        this.config = config;
        this.clock = clock;
        this.latency = metrics.histogram("adreport_serve_check_seconds", "Latency of POST /v1/serve/check (parse, one Get, answer)",
                new double[] {0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5});
        this.staleReads = metrics.counter("adreport_serve_stale_reads_total", "Profile reads answered by a secondary replica");
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
        var role = BearerAuth.role(ctx);
        if (!role.isAdserver() && !role.isAnalyst()) {
            throw new AccessDenied("only adserver (or analyst) keys may call the serving endpoints");
        }
        Request req = parse(ctx.bodyAsBytes());
        long now = clock.millis();
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        List<Answer> answers = new ArrayList<>(req.campaigns().size());
        Response response;
        if (unidentified.isUnidentifiedRaw(req.device())) {
            for (String key : req.campaigns()) {
                Optional<Campaign> c = registry.find(key);
                Answer a = serving(key, c, today);
                if (a == null) {
                    boolean capped = c.isPresent() && !c.get().caps().isEmpty();
                    a = capped && config.denyUnidentified()
                            ? new Answer(key, false, "unidentified", null, null, null, null)
                            : new Answer(key, true, null, null, null, null, c.isPresent() ? null : Boolean.FALSE);
                }
                answers.add(a);
            }
            response = new Response("unidentified", false, Map.of(), answers);
        } else {
            List<byte[]> prefixes = new ArrayList<>();
            for (String key : req.campaigns()) {
                registry.find(key).filter(c -> !c.caps().isEmpty())
                        .ifPresent(c -> prefixes.add(ViewCells.prefix(c.advertiser(), c.campaign())));
            }
            ProfileReader.Profile p = reader.read(hasher.hash(req.device()), prefixes);
            if (p.stale()) {
                staleReads.inc();
            }
            for (String key : req.campaigns()) {
                Optional<Campaign> c = registry.find(key);
                Answer a = serving(key, c, today);
                if (a == null) {
                    long[] views = p.views().getOrDefault(key, new long[0]);
                    CapCheck.Reached reached = c.isEmpty() ? null : CapCheck.firstReached(c.get(), views, views.length, now);
                    a = reached == null
                            ? new Answer(key, true, null, null, null, null, c.isPresent() ? null : Boolean.FALSE)
                            : new Answer(key, false, "capped", reached.cap().window().text(), reached.cap().max(), reached.count(), null);
                }
                answers.add(a);
            }
            response = new Response(p.found() ? "known" : "new", p.stale(), p.segments(), answers);
        }
        ctx.json(response);
        latency.observeNanos(System.nanoTime() - start);
    }

    /** A refusal for a registered campaign that may not serve today, else null. */
    private static Answer serving(String key, Optional<Campaign> c, LocalDate today) {
        if (c.isEmpty() || c.get().servesOn(today)) {
            return null;
        }
        return new Answer(key, false, c.get().status() == Campaign.Status.paused ? "paused" : "not-serving", null, null, null, null);
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
        if (cs == null || !cs.isArray() || cs.isEmpty() || cs.size() > config.maxCampaigns()) {
            throw bad("campaigns", "must be an array of 1.." + config.maxCampaigns() + " \"advertiser/campaign\" strings");
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
