package io.adreport.report.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.report.ReportConfig;
import io.adreport.http.auth.AccessPolicy;
import io.adreport.http.auth.ApiKeys;
import io.adreport.schema.hbase.AsyncReads;
import io.adreport.report.query.CounterReader;
import io.adreport.report.query.LiveReads;
import io.adreport.report.query.ExportReader;
import io.adreport.report.query.QueryPlanner;
import io.adreport.report.query.RankedTopN;
import io.adreport.report.query.ReportEngine;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.meta.ApiKeyStore;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.table.TableLayout;
import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.client.Connection;
import io.adreport.http.ApiRoute;
import io.adreport.http.BearerAuth;
import io.adreport.http.ErrorMapper;
import io.adreport.http.OpenApiDocument;
import io.adreport.http.RequestMetrics;
import io.adreport.schema.threads.DaemonThreads;

/**
 * The report API and dashboard as one Javalin app. Every route is declared once, below, as an
 * {@link ApiRoute}: Javalin serves it and the OpenAPI document describes it from the same list.
 *
 * <p><b>Moving parts.</b> One bounded read executor ({@code report.query.threads} threads, a
 * queue of {@code report.query.queue}; when full the request thread runs the read itself, so load
 * slows callers down instead of growing a queue) is created here and shut down when the server
 * stops. The HBase {@link Connection} is the process's shared one and is not closed here.
 *
 * <p><b>Security.</b> A before-handler on {@code /v1/*} resolves the bearer key to a role
 * (401 otherwise); the {@link AccessPolicy} confines a tenant to its own rows before anything is
 * read (403 otherwise). {@code /}, {@code /healthz}, {@code /metrics} and {@code /openapi.json}
 * carry no tenant data.
 */
public final class ReportApi {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReportApi.class);
    static final String VERSION = "1";
    /** Series a ranked top-N may resolve before it falls back to reading every counter. */
    static final int RANKED_MAX_CANDIDATES = 200_000;

    /**
     * What the API needs; one of each per process.
     *
     * @param cube        the cube
     * @param layout      table names
     * @param connection  the shared HBase connection
     * @param days        day status and drift reports
     * @param aggregators the aggregators' heartbeat rows (where live counts are served)
     * @param keys        API key lookup
     * @param metrics     the process's metrics registry
     * @param clock       time for day status and the key cache
     * @param config      limits and port
     */
    public record Deps(Cube cube, TableLayout layout, Connection connection, DayStatusStore days, HeartbeatStore aggregators,
                       ApiKeys keys, Metrics metrics, Clock clock, ReportConfig config) {
        public Deps {
            Objects.requireNonNull(cube, "cube");
            Objects.requireNonNull(layout, "layout");
            Objects.requireNonNull(connection, "connection");
            Objects.requireNonNull(days, "days");
            Objects.requireNonNull(aggregators, "aggregators");
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(metrics, "metrics");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(config, "config");
        }

        /**
         * Wires the meta table's stores and the key lookup over {@code connection} for the tables of
         * {@code cube} in {@code namespace}.
         */
        public static Deps of(Connection connection, Cube cube, String namespace, ReportConfig config, Metrics metrics, Clock clock) {
            TableLayout layout = new TableLayout(cube, namespace);
            // Key lookups and day states are read on every request: bounded like the report's own reads.
            Duration timeout = config.queryTimeout();
            ApiKeys keys = apiKeys(new ApiKeyStore(connection, layout, clock, min(timeout, config.keyLookup())), cube, config, clock);
            metrics.gauge("adreport_api_key_stale_answers", "Key refreshes the meta table did not answer, the key served from its last known answer "
                    + "meanwhile (report.key.stale.ms); counts up", keys::staleAnswers);
            return new Deps(cube, layout, connection, new DayStatusStore(connection, layout, clock, timeout),
                    new HeartbeatStore(connection, layout, clock, timeout), keys, metrics, clock, config);
        }
    }

    private ReportApi() {
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** The key store the API authenticates with; also what {@code bin/adreport keys} uses. */
    public static ApiKeys apiKeys(ApiKeyStore store, Cube cube, ReportConfig config, Clock clock) {
        return new ApiKeys(store, cube, clock, config.keyCache(), config.keyCacheSize(), config.keyStale());
    }

    /** The app, not started: call {@code start(port)} (e.g. {@code deps.config().port()}). */
    public static Javalin create(Deps deps) {
        return create(deps, List.of());
    }

    /**
     * As {@link #create(Deps)}, also serving {@code extra} routes (e.g. the campaign registry's, the ad
     * server's serving endpoints, privacy deletions) behind the same authentication, error mapping,
     * metrics and OpenAPI document.
     */
    public static Javalin create(Deps deps, List<ApiRoute> extra) {
        ReportConfig cfg = deps.config();
        ThreadPoolExecutor executor = readExecutor(cfg);
        ObjectMapper mapper = new ObjectMapper();
        AccessPolicy policy = new AccessPolicy(deps.cube());
        ReportParams params = new ReportParams(deps.cube(), cfg.maxLimit());
        QueryPlanner planner = new QueryPlanner(deps.cube(), cfg.maxBuckets(), cfg.maxPointGets());
        AsyncReads async = new AsyncReads(deps.connection(), cfg.queryTimeout());
        InternalKey internalKey = new InternalKey(deps.keys());
        LiveReads live = cfg.liveTimeout().isZero() ? LiveReads.OFF
                : new LiveReads(deps.aggregators()::aggregators, deps.days()::closedDays, deps.clock(), cfg.liveTimeout(), deps.metrics())
                        .withCredential(internalKey::get);
        if (live != LiveReads.OFF) {
            internalKey.warm(); // created now, so aggregators have read it before the first report asks
        }
        CounterReader counters = new CounterReader(deps.connection(), async, deps.layout(), executor, cfg.maxRowsScanned(),
                cfg.queryTimeout(), deps.metrics(), live);
        RankedTopN ranked = new RankedTopN(deps.cube(), deps.connection(), deps.layout(), deps.days(), planner, counters,
                executor, cfg.queryTimeout(), RANKED_MAX_CANDIDATES, deps.metrics());
        ReportEngine engine = new ReportEngine(deps.cube(), planner, counters, cfg.maxResultRows(), ranked, deps.metrics());

        OpsController ops = new OpsController(deps.metrics(), deps.connection());
        RollupController rollups = new RollupController(deps.cube(), policy);
        ExportReader exporter = new ExportReader(deps.cube(), deps.connection(), deps.layout(), executor, cfg.maxRowsScanned(),
                cfg.queryTimeout(), deps.metrics());
        ReportController reports = new ReportController(deps.cube(), params, policy, engine, exporter, deps.days(), async,
                deps.clock(), mapper);
        ReconcileController reconcile = new ReconcileController(deps.days(), deps.aggregators()::beaconsRefused, policy, mapper, deps.clock());
        BearerAuth auth = new BearerAuth(deps.keys());
        ErrorMapper errors = new ErrorMapper();

        Map<Integer, String> common = Map.of(401, "no, unknown or revoked API key", 403, "the key may not read this");
        List<ApiRoute> base = List.of(
                new ApiRoute(HandlerType.GET, "/healthz", "Liveness and HBase connection state", "operations", false,
                        List.of(), Map.of(200, "up", 503, "HBase connection lost"), ops::health).withAnswer(OpsController.Health.class),
                new ApiRoute(HandlerType.GET, "/metrics", "Prometheus metrics: requests by route and status, HBase read latency",
                        "operations", false, List.of(), Map.of(200, "text exposition format 0.0.4"), ops::metrics, List.of("text/plain")),
                new ApiRoute(HandlerType.GET, "/openapi.json", "This document", "operations", false,
                        List.of(), Map.of(200, "OpenAPI 3 document"), ops::openApi).withAnswer(Map.class),
                new ApiRoute(HandlerType.GET, "/v1/rollups", "Rollups the key may read: dimensions, tenant, granularities, metrics",
                        "reports", true, List.of(), merge(common, Map.of(200, "rollups")), rollups::list)
                        .withAnswer(RollupController.RollupsResponse.class),
                new ApiRoute(HandlerType.GET, "/v1/reports/{rollup}", "A report over one rollup: JSON, or every row streamed as CSV or NDJSON", "reports", true,
                        params.docs(), merge(common, Map.of(200, "report rows and day status (csv, ndjson: the Adreport-Days header; ndjson: a final {rows, days} line)", 400, "a parameter breaks a rule",
                        404, "unknown rollup", 503, "HBase unavailable")), reports::report,
                        List.of("application/json", "text/csv", "application/x-ndjson")).withAnswer(ReportResponse.class),
                new ApiRoute(HandlerType.GET, "/v1/reconcile", "Closed and reconciled days of a range with their drift, and the refused pixel beacons (analysts)",
                        "reconcile", true, List.of(
                        ApiRoute.Param.query("from", "string", "first UTC day YYYY-MM-DD; default 6 days before to"),
                        ApiRoute.Param.query("to", "string", "last UTC day YYYY-MM-DD, inclusive; default today; at most "
                                + ReconcileController.MAX_DAYS + " days after from")),
                        merge(common, Map.of(200, "days", 400, "bad date")), reconcile::list)
                        .withAnswer(ReconcileController.DayReports.class),
                new ApiRoute(HandlerType.GET, "/v1/reconcile/{day}", "Drift report of one UTC day (analysts)", "reconcile", true,
                        List.of(ApiRoute.Param.path("day", "UTC day YYYY-MM-DD")),
                        merge(common, Map.of(200, "status and drift report", 400, "bad date", 404, "never reconciled")),
                        reconcile::day).withAnswer(ReconcileController.DayReport.class));
        List<ApiRoute> routes = new java.util.ArrayList<>(base);
        routes.addAll(extra);
        ops.openApi(OpenApiDocument.of("adreport report API", VERSION, routes));
        RequestMetrics requestMetrics = new RequestMetrics(deps.metrics(),
                routes.stream().map(ApiRoute::path).collect(Collectors.toUnmodifiableSet()));

        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.jsonMapper(new JavalinJackson(mapper, false));
            config.staticFiles.enableWebjars();
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = "/io/adreport/report/dashboard/web";
                files.location = Location.CLASSPATH;
            });
            config.requestLogger.http(requestMetrics::record);
            config.router.mount(router -> {
                router.before(ErrorMapper::tag);
                router.before("/v1/*", auth::authenticate);
                for (ApiRoute r : routes) {
                    router.addHttpHandler(r.method(), r.path(), r.handler());
                }
                // One mapper; registered for the classes Javalin has defaults for, so that it wins.
                router.exception(Exception.class, errors::handle);
                router.exception(io.javalin.http.HttpResponseException.class, errors::handle);
                router.exception(io.javalin.validation.ValidationException.class, errors::handle);
            });
        });
        app.events(e -> e.serverStopped(() -> {
            internalKey.revoke();
            executor.shutdownNow();
            try {
                async.close();
            } catch (java.io.IOException ex) {
                LOG.warn("closing the asynchronous HBase client: {}", ex.toString());
            }
        }));
        return app;
    }

    private static ThreadPoolExecutor readExecutor(ReportConfig cfg) {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(cfg.queryThreads(), cfg.queryThreads(), 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(cfg.queryQueue()), DaemonThreads.numbered("report-read"), new ThreadPoolExecutor.CallerRunsPolicy());
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    private static Map<Integer, String> merge(Map<Integer, String> a, Map<Integer, String> b) {
        java.util.HashMap<Integer, String> out = new java.util.HashMap<>(a);
        out.putAll(b);
        return out;
    }
}
