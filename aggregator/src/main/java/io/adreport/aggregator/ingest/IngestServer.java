package io.adreport.aggregator.ingest;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.flush.CounterWriter;
import io.adreport.aggregator.store.RawStore;
import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.event.EventParser;
import io.javalin.Javalin;
import io.javalin.http.HttpResponseException;
import java.time.Duration;
import java.util.Map;

/**
 * The ingest HTTP server: routes in one place, one exception mapper. Error bodies are
 * {@code {"error": "..."}}; 429 and 503 carry {@code Retry-After}.
 */
public final class IngestServer {
    private IngestServer() {
    }

    public static Javalin create(EventParser parser, RawStore store, CounterWriter counters, AggregatorMetrics metrics,
                                 Duration block, Duration hbaseTimeout) {
        IngestController c = new IngestController(parser, store, counters, metrics, block, hbaseTimeout);
        Javalin app = Javalin.create(cfg -> {
            cfg.showJavalinBanner = false;
            cfg.http.maxRequestSize = EventBody.MAX_BYTES;
        });
        app.post("/v1/events", c::postEvents);
        app.get("/v1/pixel", c::pixel);
        app.get("/healthz", c::healthz);
        app.get("/metrics", c::metrics);
        // The live-counts exchange (LiveCounts): the report API asks for the totals not yet flushed.
        app.post(LiveCounts.PATH, ctx -> {
            long start = System.nanoTime();
            LiveCounts.Answer answer;
            try {
                answer = counters.live(LiveCounts.decodeRequest(ctx.bodyAsBytes()));
            } catch (IllegalArgumentException e) {
                throw new IngestError(400, e.getMessage());
            }
            ctx.contentType(LiveCounts.CONTENT_TYPE).result(LiveCounts.encode(answer));
            metrics.liveAnswerSeconds.observeNanos(System.nanoTime() - start);
        });
        app.exception(IngestError.class, (e, ctx) -> {
            if (e.status == 429 || e.status == 503) {
                ctx.header("Retry-After", "1");
            }
            ctx.status(e.status).json(Map.of("error", e.getMessage()));
        });
        app.exception(HttpResponseException.class, (e, ctx) ->
                ctx.status(e.getStatus()).json(Map.of("error", e.getStatus() == 413
                        ? "body: must be at most " + EventBody.MAX_BYTES + " bytes (10 MiB)" : e.getMessage())));
        app.after(ctx -> {
            if (ctx.path().startsWith("/v1/")) {
                metrics.request(ctx.statusCode());
            }
        });
        return app;
    }
}
