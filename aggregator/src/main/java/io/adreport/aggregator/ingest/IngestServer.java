package io.adreport.aggregator.ingest;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.flush.CounterWriter;
import io.adreport.aggregator.store.RawStore;
import io.adreport.http.ErrorMapper;
import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.RequestIds;
import io.javalin.Javalin;
import io.javalin.http.HttpResponseException;
import java.time.Duration;
import java.util.Map;

/**
 * The ingest HTTP server: routes in one place, one exception mapper. Error bodies are
 * {@code {"error": "..."}}; 429 and 503 carry {@code Retry-After}. Every answer carries the
 * request's id ({@link RequestIds}); an exception no handler expected is logged with that id and
 * answered 500 with it in the body, never as a bare "Server Error" (both by the HTTP foundation's
 * {@link ErrorMapper}, as in every adreport service).
 */
public final class IngestServer {

    private IngestServer() {
    }

    /**
     * Gives every request of {@code app} its id (kept from the caller's header or made anew,
     * echoed in the answer header) and answers an exception no other mapper takes with 500, a
     * JSON body naming the id, and an error log line with the same id.
     */
    static void tagRequests(Javalin app) {
        app.before(ErrorMapper::tag);
        app.exception(Exception.class, (e, ctx) -> ErrorMapper.unexpected(e, ctx, "the ingest log"));
    }

    public static Javalin create(EventParser parser, RawStore store, CounterWriter counters, AggregatorMetrics metrics,
                                 Duration block, Duration hbaseTimeout, EdgeGuard guard) {
        IngestController c = new IngestController(parser, store, counters, metrics, block, hbaseTimeout, guard);
        Javalin app = Javalin.create(cfg -> {
            cfg.showJavalinBanner = false;
            cfg.http.maxRequestSize = EventBody.MAX_BYTES;
        });
        tagRequests(app);
        app.events(e -> e.serverStopped(guard::close));
        app.post("/v1/events", ctx -> {
            guard.requireIngestKey(ctx);
            c.postEvents(ctx);
        });
        app.get("/v1/pixel", c::pixel);
        app.get("/healthz", c::healthz);
        app.get("/metrics", c::metrics);
        // The live-counts exchange (LiveCounts): the report API asks for the totals not yet flushed,
        // presenting the cluster's internal credential; anyone else is 401 before the body is read.
        app.post(LiveCounts.PATH, ctx -> {
            guard.requireInternal(ctx);
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
