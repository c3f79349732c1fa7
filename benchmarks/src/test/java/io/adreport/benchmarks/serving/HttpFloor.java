package io.adreport.benchmarks.serving;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.http.ApiRoute;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.AbstractHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP part of a check without the check: the same request body read and parsed (a Jackson
 * tree, as {@code CheckController} reads it), and an answer of the check's shape written by a
 * streaming generator (every campaign asked about {@code allowed}), with no HBase read, no key
 * lookup beyond the server's own and no cap logic. Served two ways, so a phase of the serving
 * benchmark can set a check's cost beside what HTTP and JSON alone cost in the same run:
 * <ul>
 *   <li>{@link #bareJetty}: a Jetty handler on a Jetty server of its own, no servlet stack, no
 *       framework (the leanest HTTP route this stack offers);</li>
 *   <li>{@link #route}: a route on the API's own server (Javalin: bearer key, request metrics,
 *       error mapping, the same before-handlers as {@code /v1/serve/check}).</li>
 * </ul>
 */
final class HttpFloor {
    static final String PATH = "/v1/bench/http-floor";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory JSON = MAPPER.getFactory().copy().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    private HttpFloor() {
    }

    /** Reads a check's body ({@code device}, {@code campaigns}) and writes an all-allowed answer of the check's shape. */
    static void answer(InputStream in, int length, OutputStream out) throws IOException {
        JsonNode root = MAPPER.readTree(length >= 0 ? in.readNBytes(length) : in.readAllBytes());
        JsonNode campaigns = root.get("campaigns");
        if (!root.path("device").isTextual() || campaigns == null || !campaigns.isArray()) {
            throw new IllegalArgumentException("not a check: " + root);
        }
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("device", "known");
            g.writeBooleanField("stale", false);
            g.writeBooleanField("degraded", false);
            g.writeObjectFieldStart("segments");
            g.writeNumberField("seg1", 0.5);
            g.writeEndObject();
            g.writeArrayFieldStart("campaigns");
            for (JsonNode c : campaigns) {
                g.writeStartObject();
                g.writeStringField("campaign", c.asText());
                g.writeBooleanField("allowed", true);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    /** The floor as a route of the API's server ({@code secured}: the caller's bearer key is checked as for a check). */
    static ApiRoute route() {
        return new ApiRoute(HandlerType.POST, PATH, "The serving benchmark's HTTP floor (no HBase)", "serving", true, List.of(),
                Map.of(200, "an all-allowed answer of the check's shape"), (Context ctx) -> {
                    ctx.contentType("application/json");
                    answer(ctx.req().getInputStream(), ctx.req().getContentLength(), ctx.outputStream());
                });
    }

    /** A Jetty server of its own on a free port of 127.0.0.1, one handler for {@link #PATH}; stop it with {@link Server#stop}. */
    static Server bareJetty() throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(32, 4);
        threads.setName("bare-jetty");
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new AbstractHandler() {
            @Override
            public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp) throws IOException {
                base.setHandled(true);
                if (!PATH.equals(target) || !"POST".equals(req.getMethod())) {
                    resp.setStatus(404);
                    return;
                }
                resp.setContentType("application/json");
                answer(req.getInputStream(), req.getContentLength(), resp.getOutputStream());
            }
        });
        server.start();
        return server;
    }

    /** Where {@code server} (from {@link #bareJetty}) serves the floor. */
    static URI url(Server server) {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort() + PATH);
    }
}
