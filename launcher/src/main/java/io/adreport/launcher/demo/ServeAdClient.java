package io.adreport.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link AdServer} over the report API's {@code POST /v1/serve/ad} with an {@code adserver}
 * key: one request per slot. The sold impression is the one the answer's impression beacon
 * describes (its id and {@code costMicros}); the demo delivers that beacon, and the click and
 * conversion beacons of the same impression, through its batched ingest path. Like a browser, it
 * also fires the signed URLs it was given at the pixel: the impression URL at once, the click URL
 * (with the click's {@code ts}) when the simulated device clicks ({@link BeaconGenerator}); the
 * batched path carries the same events, so one of each pair is a duplicate. Every
 * {@value #FORGE_EVERY}th ad request it also fires a forged beacon, alternately the impression URL
 * with its cost multiplied by 1,000 and the impression without its signature (both under a new
 * id): the pixel refuses them ({@code adreport_beacons_refused_total}, the dashboard's refused
 * beacons tile), and {@link #forged()} says how many it fired. Fails open: when the API cannot be
 * asked the slot is filled by the local pick (counted, logged once), so the demo keeps running
 * while the API restarts.
 */
public final class ServeAdClient implements AdServer {
    private static final Logger LOG = LoggerFactory.getLogger(ServeAdClient.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI serve;
    private final String key;
    private final LongAdder asked = new LongAdder();
    private final LongAdder unfilled = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder fired = new LongAdder();
    private final LongAdder forged = new LongAdder();
    private final LongAdder answered = new LongAdder();
    static final int FORGE_EVERY = 100;
    private volatile boolean warned;

    /** @param reportUrl the report API's base URL, e.g. {@code http://localhost:8080} */
    public ServeAdClient(URI reportUrl, String adserverKey) {
        this.serve = reportUrl.resolve("/v1/serve/ad");
        this.key = adserverKey;
    }

    @Override
    public Served serve(AdNetwork.Zone zone, AdNetwork.Device device) {
        asked.increment();
        ObjectNode body = JSON.createObjectNode().put("site", zone.publisher()).put("zone", zone.id()).put("device", device.id())
                .put("country", device.country()).put("deviceType", device.deviceType());
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(serve).timeout(Duration.ofSeconds(2))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
            }
            JsonNode ad = JSON.readTree(r.body()).path("ads").path(0);
            if (ad.isMissingNode()) {
                unfilled.increment();
                return null;
            }
            String impression = ad.path("beacons").path("impression").asText();
            fire(impression);
            long n = asked.sum();
            if (n % FORGE_EVERY == 0) {
                forged.increment();
                fire(n % (2 * FORGE_EVERY) == 0 ? forge(impression) : unsigned(impression));
            }
            String click = ad.path("beacons").path("click").asText(null);
            return new Served(ad.path("advertiser").asText(), ad.path("campaign").asText(), ad.path("creative").asText(),
                    ad.path("impressionId").asText(), cost(impression), click);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return LOCAL;
        } catch (Exception e) {
            failed.increment();
            if (!warned) {
                warned = true;
                LOG.warn("demo ad server: POST /v1/serve/ad failed, filling slots locally: {}", e.toString());
            }
            return LOCAL;
        }
    }

    /** Fires a beacon URL as a browser would, without waiting for the answer ({@link #unanswered()} counts it until then). */
    @Override
    public void fire(String url) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build();
        } catch (IllegalArgumentException e) { // not a URL: nothing to fire
            return;
        }
        fired.increment();
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, failure) -> answered.increment());
    }

    /** Forged beacons fired so far (each refused by a pixel that verifies signatures). */
    public long forged() {
        return forged.sum();
    }

    /** Beacons fired whose answer (or failure) has not come back yet. */
    public long unanswered() {
        return fired.sum() - answered.sum();
    }

    /** An impression beacon without its signature, under a new id: what a pixel written by hand looks like. */
    static String unsigned(String url) {
        return url.replaceAll("&(kid|exp|sig)=[^&]*", "").replace("&id=", "&id=unsigned-");
    }

    /** A forged copy of a signed impression beacon: its cost times 1,000, under a new id. */
    static String forge(String url) {
        long cost = cost(url);
        return url.replace("costMicros=" + cost, "costMicros=" + cost * 1000).replace("&id=", "&id=forged-");
    }

    /** The {@code costMicros} parameter of a beacon URL. */
    static long cost(String beaconUrl) {
        String v = param(beaconUrl, "costMicros");
        return v == null ? 0 : Long.parseLong(v);
    }

    /** The decoded parameter {@code name} of a beacon URL, or null. */
    static String param(String beaconUrl, String name) {
        int q = beaconUrl.indexOf('?');
        for (String p : beaconUrl.substring(q + 1).split("&")) {
            if (p.startsWith(name + "=")) {
                return URLDecoder.decode(p.substring(name.length() + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** e.g. {@code "ad requests: 3,600 asked, 41 unfilled, 0 failed"}. */
    String summary() {
        return String.format("ad requests: %,d asked, %,d unfilled (budgets, pacing, caps), %,d failed; %,d signed beacons fired, "
                + "%,d of them forged", asked.sum(), unfilled.sum(), failed.sum(), fired.sum(), forged.sum());
    }
}
