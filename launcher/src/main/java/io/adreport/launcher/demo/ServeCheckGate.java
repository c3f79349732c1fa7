package io.adreport.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CapGate} over the report API's {@code POST /v1/serve/check} with an {@code adserver}
 * key: one request per impression about to be shown, as a real ad server would ask. Fails open
 * (the impression is shown, the failure counted and logged once): the demo must keep running if
 * the API restarts.
 */
public final class ServeCheckGate implements CapGate {
    private static final Logger LOG = LoggerFactory.getLogger(ServeCheckGate.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI check;
    private final String key;
    private final LongAdder asked = new LongAdder();
    private final LongAdder denied = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private volatile boolean warned;

    /** @param reportUrl the report API's base URL, e.g. {@code http://localhost:8080} */
    public ServeCheckGate(URI reportUrl, String adserverKey) {
        this.check = reportUrl.resolve("/v1/serve/check");
        this.key = adserverKey;
    }

    @Override
    public boolean mayShow(String device, String advertiser, String campaign) {
        asked.increment();
        ObjectNode body = JSON.createObjectNode().put("device", device);
        body.putArray("campaigns").add(advertiser + "/" + campaign);
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(check).timeout(Duration.ofSeconds(2))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
            }
            JsonNode answer = JSON.readTree(r.body()).path("campaigns").path(0);
            boolean allowed = answer.path("allowed").asBoolean(true);
            if (!allowed) {
                denied.increment();
            }
            return allowed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        } catch (Exception e) {
            failed.increment();
            if (!warned) {
                warned = true;
                LOG.warn("demo ad server: the cap check failed, showing impressions unchecked: {}", e.toString());
            }
            return true;
        }
    }

    /** e.g. {@code "cap checks: 3,600 asked, 41 denied, 0 failed"}. */
    String summary() {
        return String.format("cap checks: %,d asked, %,d denied, %,d failed", asked.sum(), denied.sum(), failed.sum());
    }
}
