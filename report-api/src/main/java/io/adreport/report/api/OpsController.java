package io.adreport.report.api;

import io.adreport.http.RecordSchemas;
import io.adreport.schema.metrics.Metrics;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;

/** {@code /healthz}, {@code /metrics} and {@code /openapi.json}: unauthenticated and free of tenant data. */
final class OpsController {

    /** @param status ok, or down when the HBase connection is closed or aborted */
    @RecordSchemas.Name("Health")
    public record Health(String status) {
    }

    private final Metrics metrics;
    private final Connection connection;
    private volatile Map<String, Object> openApi = Map.of();

    OpsController(Metrics metrics, Connection connection) {
        this.metrics = metrics;
        this.connection = connection;
    }

    /** Set once, before the server starts: the document describes the routes this controller is part of. */
    void openApi(Map<String, Object> document) {
        this.openApi = Map.copyOf(document);
    }

    void health(Context ctx) {
        boolean up = !connection.isClosed() && !connection.isAborted();
        ctx.status(up ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).json(new Health(up ? "ok" : "down"));
    }

    void metrics(Context ctx) {
        ctx.contentType(Metrics.CONTENT_TYPE).result(metrics.scrape());
    }

    void openApi(Context ctx) {
        ctx.json(openApi);
    }
}
