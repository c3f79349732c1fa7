package io.adreport.serving.check;

import static io.adreport.http.ErrorMapper.badParam;

import io.adreport.http.JsonBody;
import io.adreport.http.RecordSchemas;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.event.DeviceId;
import io.adreport.schema.inventory.Ad;
import io.adreport.schema.inventory.ZoneInventory;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.trust.BeaconSigner;
import io.adreport.serving.ServeConfig;
import io.adreport.campaigns.registry.CampaignRegistry;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * {@code POST /v1/serve/ad}: the ad server's choice for one request.
 *
 * <pre>request  {"site": "pub1", "zone": "top", "device": "raw id", "keywords": ["shoes"], "count": 1,
 *           "country": "US", "deviceType": "phone"}
 * response {"device": "known|new|unidentified|unknown", "stale": false, "degraded": false,
 *           "ads": [{"advertiser", "campaign", "creative", "ecpmMicros", "score", "impressionId",
 *                    "beacons": {"impression": URL, "click": URL}}]}</pre>
 *
 * Eligible: an ad of the zone whose campaign is registered and allowed by {@link CapDecider} (the
 * same decision and the same single profile Get as {@link CheckController}). The choice is {@link AdSelector}'s. Each chosen ad carries a
 * fresh impression id and the pixel URLs to fire: the impression beacon is complete (its time is
 * the serve time); the click beacon needs {@code &ts=<epoch ms>} appended when the click happens.
 * Both are signed by {@link BeaconSigner} (key id, expiry, HMAC over every other parameter) and
 * carry the device as its keyed hash ({@code dt}), never the raw id.
 * Cost: one profile Get plus the in-memory registry. A campaign whose budget is exhausted is never
 * eligible, and one under pacing is eligible on its pass-through share of requests (both decided
 * by {@link CapDecider} from the pacing service's published state).
 */
public final class AdController {
    private static final int MAX_COUNT = 10;

    private final CapDecider decider;
    private final CampaignRegistry registry;
    private final Clock clock;
    private final java.util.function.Supplier<RandomGenerator> rng;
    private final String beaconBase;
    private final BeaconFields fields;
    private final BeaconSigner signer;
    private final Metrics.Histogram latency;
    private final Metrics.Counter unfilled;

    /**
     * {@code cube}: the cube the beacons' events are counted in; the beacon URLs use its field names
     * ({@link BeaconFields}). {@code signer} signs them (the device as its keyed token, never the raw id).
     */
    public AdController(CapDecider decider, CampaignRegistry registry, Cube cube, ServeConfig config, Clock clock,
                        java.util.function.Supplier<RandomGenerator> rng, Metrics metrics, BeaconSigner signer) {
        this.signer = signer;
        this.decider = decider;
        this.registry = registry;
        this.clock = clock;
        this.rng = rng;
        this.beaconBase = config.beaconUrl().replaceAll("/+$", "") + "/v1/pixel?";
        this.fields = BeaconFields.of(cube);
        this.latency = metrics.histogram("adreport_serve_ad_seconds", "Latency of POST /v1/serve/ad (one profile Get, choice, answer)",
                Metrics.LATENCY_BUCKETS);
        this.unfilled = metrics.counter("adreport_serve_ad_unfilled_total", "Ad requests with no eligible ad");
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RecordSchemas.Name("ChosenAd")
    public record Chosen(String advertiser, String campaign, String creative, long ecpmMicros, double score, String impressionId,
                         Map<String, String> beacons) {
    }

    @RecordSchemas.Name("AdAnswer")
    public record Response(String device, boolean stale, boolean degraded, List<Chosen> ads) {
    }

    /** The request as {@link #parse} reads it (also its schema: {@code keywords}, {@code count} (default 1), {@code country}, {@code deviceType} may be left out). */
    /** The record the request body is read as, for the OpenAPI document. */
    public static Class<?> requestType() {
        return Request.class;
    }

    @RecordSchemas.Name("AdRequest")
    record Request(String site, String zone, String device, @RecordSchemas.Nullable Set<String> keywords, @RecordSchemas.Nullable int count,
                   @RecordSchemas.Nullable String country, @RecordSchemas.Nullable String deviceType) {
    }

    public void serve(Context ctx) throws IOException {
        long start = System.nanoTime();
        CapDecider.requireServingRole(ctx);
        Request req = parse(ctx.bodyAsBytes());
        List<Ad> ads = registry.zone(req.site(), req.zone()).map(ZoneInventory::ads).orElse(List.of());
        Set<String> keys = new LinkedHashSet<>();
        ads.forEach(a -> keys.add(a.campaignKey()));
        CapDecider.Decision d = decider.decide(req.device(), keys);
        List<Ad> eligible = new ArrayList<>();
        for (Ad ad : ads) {
            CapDecider.Verdict v = d.verdicts().get(ad.campaignKey());
            if (v.allowed() && v.campaign().isPresent()) { // an unregistered campaign is never served
                eligible.add(ad);
            }
        }
        long now = clock.millis();
        List<Chosen> chosen = new ArrayList<>();
        for (AdSelector.Ranked r : AdSelector.rank(eligible, req.keywords(), req.count(), rng.get())) {
            chosen.add(chosen(r, req, now));
        }
        if (chosen.isEmpty()) {
            unfilled.inc();
        }
        ctx.json(new Response(d.device(), d.stale(), d.degraded(), chosen));
        latency.observeNanos(System.nanoTime() - start);
    }

    private Chosen chosen(AdSelector.Ranked r, Request req, long now) {
        Ad a = r.ad();
        String id = UUID.randomUUID().toString();
        BeaconFields f = fields;
        String device = decider.deviceToken(req.device());
        String imp = signer.query(List.of(param(f.type(), f.impression()), param(f.id(), id), param(f.time(), Long.toString(now)),
                param(f.advertiser(), a.advertiser()), param(f.campaign(), a.campaign()), param(f.creative(), a.creative()),
                param(f.publisher(), req.site()), param(f.zone(), req.zone()), param(BeaconSigner.DEVICE_TOKEN, device),
                param(f.country(), req.country()), param(f.deviceType(), req.deviceType()),
                param(f.cost(), Long.toString(Math.max(1, a.ecpmMicros() / 1000)))));
        String click = signer.query(List.of(param(f.type(), f.click()), param(f.id(), id + "-c"), param(f.joinField(), id),
                param(BeaconSigner.DEVICE_TOKEN, device)));
        return new Chosen(a.advertiser(), a.campaign(), a.creative(), a.ecpmMicros(), r.score(), id,
                Map.of("impression", beaconBase + imp, "click", beaconBase + click));
    }

    /** A beacon parameter; a field the cube does not have (null name) or a null value is left out by the signer. */
    private static Map.Entry<String, String> param(String name, String value) {
        return new java.util.AbstractMap.SimpleImmutableEntry<>(name, value);
    }

    private Request parse(byte[] body) {
        JsonNode root = JsonBody.object(body, "{site, zone, device, keywords?, count?}");
        String site = text(root, "site", 64, true);
        String zone = text(root, "zone", 64, true);
        String device = text(root, "device", 4 * DeviceId.MAX_LENGTH, true);
        try {
            device = DeviceId.normalize(device);
        } catch (IllegalArgumentException e) {
            throw badParam("device", e.getMessage());
        }
        Set<String> keywords = new HashSet<>();
        JsonNode k = root.get("keywords");
        if (k != null && !k.isNull()) {
            if (!k.isArray() || k.size() > 32) {
                throw badParam("keywords", "must be an array of at most 32 strings");
            }
            for (JsonNode w : k) {
                if (!w.isTextual()) {
                    throw badParam("keywords", "must be an array of at most 32 strings");
                }
                keywords.add(w.asText().toLowerCase(Locale.ROOT));
            }
        }
        int count = 1;
        JsonNode c = root.get("count");
        if (c != null && !c.isNull()) {
            if (!c.isIntegralNumber() || c.asInt() < 1 || c.asInt() > MAX_COUNT) {
                throw badParam("count", "must be an integer 1.." + MAX_COUNT);
            }
            count = c.asInt();
        }
        return new Request(site, zone, device, keywords, count, text(root, "country", 2, false), text(root, "deviceType", 16, false));
    }

    private static String text(JsonNode root, String field, int max, boolean required) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            if (required) {
                throw badParam(field, "is required");
            }
            return null;
        }
        if (!n.isTextual() || n.asText().length() > max) {
            throw badParam(field, "must be a string of at most " + max + " characters");
        }
        return n.asText();
    }
}
