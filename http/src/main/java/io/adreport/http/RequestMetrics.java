package io.adreport.http;

import io.adreport.schema.metrics.Metrics;
import io.javalin.http.Context;
import java.util.Set;

/**
 * Request counts and latency by route and status. The route label is the route template
 * ({@code /v1/reports/{rollup}}), never the raw path, so label values stay bounded.
 */
public final class RequestMetrics {
    private final Metrics metrics;
    private final Set<String> routes;

    public RequestMetrics(Metrics metrics, Set<String> routes) {
        this.metrics = metrics;
        this.routes = routes;
    }

    public void record(Context ctx, Float millis) {
        String route = route(ctx);
        String status = Integer.toString(ctx.statusCode());
        metrics.counter("adreport_report_requests_total", "HTTP requests of the report API", "route", route, "status", status).inc();
        metrics.histogram("adreport_report_request_seconds", "HTTP request latency of the report API, seconds",
                Metrics.LATENCY_BUCKETS, "route", route, "status", status).observe(millis / 1000.0);
    }

    private String route(Context ctx) {
        String path;
        try {
            path = ctx.endpointHandlerPath();
        } catch (RuntimeException e) {
            path = null;
        }
        if (path != null && routes.contains(path)) {
            return path;
        }
        if (ctx.path().startsWith("/v1/")) {
            return "/v1/*";
        }
        return ctx.statusCode() == 404 ? "unmatched" : "static";
    }
}
