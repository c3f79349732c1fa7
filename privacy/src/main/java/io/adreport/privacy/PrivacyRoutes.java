package io.adreport.privacy;

import io.adreport.http.RecordSchemas;
import static io.adreport.http.ErrorMapper.badParam;

import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.http.ApiRoute;
import io.adreport.http.BearerAuth;
import io.adreport.http.JsonBody;
import io.adreport.http.auth.AccessDenied;
import io.adreport.http.auth.Role;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.privacy.Deletion;
import io.adreport.schema.privacy.DeletionStore;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.table.TableLayout;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.NotFoundResponse;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code POST /v1/privacy/deletions} and {@code GET /v1/privacy/deletions/{id}} (analyst or
 * {@code privacy} keys), mounted with the report API, and the {@link DeletionWorker} that carries
 * the deletions out. The raw device id is hashed on arrival with the ingest's keyed hash and never
 * stored or logged; the request row holds the hash only until {@code unreadable}.
 */
public final class PrivacyRoutes implements AutoCloseable {
    private final List<ApiRoute> routes;
    private final DeletionWorker worker;

    private PrivacyRoutes(List<ApiRoute> routes, DeletionWorker worker) {
        this.routes = routes;
        this.worker = worker;
    }

    /**
     * The routes and a started worker for the tables of {@code layout}; none when the cube has
     * no device profiles or no device secret is known.
     */
    public static PrivacyRoutes create(Connection connection, TableLayout layout, DeviceHasher hasher, UnidentifiedDevices unidentified,
                                       PrivacyConfig config, Clock clock, Metrics metrics) {
        return create(connection, layout, hasher == null ? null : DeviceHashes.of(hasher), unidentified, config, clock, metrics);
    }

    /**
     * As above with the device's hashes: while the device secret rotates, a deletion erases what
     * is stored under the current and the previous secret ({@link DeviceHashes#all}).
     */
    public static PrivacyRoutes create(Connection connection, TableLayout layout, DeviceHashes hashes, UnidentifiedDevices unidentified,
                                       PrivacyConfig config, Clock clock, Metrics metrics) {
        if (!ProfileModel.supported(layout.cube()) || hashes == null) {
            return new PrivacyRoutes(List.of(), null);
        }
        return create(layout, new DeletionWorker(connection, layout, config, clock, metrics).start(), hashes, unidentified, clock, metrics);
    }

    /** With a given worker (tests drive an unstarted one tick by tick). */
    static PrivacyRoutes create(TableLayout layout, DeletionWorker worker, DeviceHasher hasher, UnidentifiedDevices unidentified,
                                Clock clock, Metrics metrics) {
        return create(layout, worker, DeviceHashes.of(hasher), unidentified, clock, metrics);
    }

    static PrivacyRoutes create(TableLayout layout, DeletionWorker worker, DeviceHashes hashes, UnidentifiedDevices unidentified,
                                Clock clock, Metrics metrics) {
        Controller c = new Controller(worker.store(), worker, hashes, unidentified, clock,
                metrics.counter("adreport_privacy_deletions_requested_total", "Privacy deletions requested"));
        Map<Integer, String> common = Map.of(401, "no, unknown or revoked API key", 403, "not an analyst or privacy key",
                503, "HBase unavailable");
        List<ApiRoute> routes = List.of(
                new ApiRoute(HandlerType.POST, "/v1/privacy/deletions",
                        "Delete what is held about a device: body {\"device\": raw id}, hashed on arrival, never stored (analyst, privacy keys)",
                        "privacy", true, List.of(), merge(common, Map.of(202, "{id}: accepted; follow it with GET", 400, "device breaks a rule")),
                        c::create).withRequest(DeletionRequest.class).withAnswer(Accepted.class),
                new ApiRoute(HandlerType.GET, "/v1/privacy/deletions/{id}",
                        "A deletion's steps with their times: requested, unreadable, compacted, snapshots-expired, done", "privacy", true,
                        List.of(ApiRoute.Param.path("id", "deletion id")),
                        merge(common, Map.of(200, "steps reached", 404, "no such deletion")), c::get).withAnswer(Status.class));
        return new PrivacyRoutes(routes, worker);
    }

    public List<ApiRoute> routes() {
        return routes;
    }

    @Override
    public void close() {
        if (worker != null) {
            worker.close();
        }
    }

    /** The body of POST: the raw device id (a string, or an integer read as its digits). */
    @RecordSchemas.Name("DeletionRequest")
    public record DeletionRequest(String device) {
    }

    /** The answer of POST: the deletion's id. */
    @RecordSchemas.Name("DeletionAccepted")
    public record Accepted(String id) {
    }

    /** The answer of GET: the steps reached, in order, with their times. */
    @RecordSchemas.Name("DeletionStatus")
    public record Status(String id, String step, List<StepTime> steps, long eventsRewritten, long profileCells) {
    }

    @RecordSchemas.Name("DeletionStep")
    public record StepTime(String step, String at) {
    }

    static Status status(Deletion d) {
        List<StepTime> steps = new ArrayList<>();
        d.steps().forEach((s, at) -> steps.add(new StepTime(s.label(), at.toString())));
        return new Status(d.id(), d.step().label(), steps, d.eventsRewritten(), d.profileCells());
    }

    private record Controller(DeletionStore store, DeletionWorker worker, DeviceHashes hashes, UnidentifiedDevices unidentified,
                              Clock clock, Metrics.Counter requested) {
        void create(Context ctx) throws IOException {
            requireRole(BearerAuth.role(ctx));
            String device = device(ctx.bodyAsBytes());
            String id = store.create(hashes.all(device), clock.instant());
            requested.inc();
            worker.wake();
            ctx.status(202).json(new Accepted(id));
        }

        void get(Context ctx) throws IOException {
            requireRole(BearerAuth.role(ctx));
            String id = ctx.pathParam("id");
            Deletion d = store.get(id).orElseThrow(() -> new NotFoundResponse("no deletion " + (DeletionStore.validId(id) ? id : "with that id")));
            ctx.json(status(d));
        }

        /** The raw id, checked by the ingest's rules for a hashed field (so it hashes to what ingest stored). */
        private String device(byte[] body) {
            JsonNode v = JsonBody.object(body, "{\"device\": \"...\"}").get(ProfileModel.DEVICE_FIELD);
            if (v == null || v.isNull()) {
                throw badParam("device", "is required");
            }
            if (!v.isTextual() && !v.isIntegralNumber()) {
                throw badParam("device", "must be a string");
            }
            try {
                return DeletionStore.requireDevice(v.asText(), unidentified);
            } catch (IllegalArgumentException e) {
                throw badParam("device", e.getMessage());
            }
        }

        private static void requireRole(Role role) {
            if (!role.isAnalyst() && !role.isPrivacy()) {
                throw new AccessDenied("privacy deletions are for analyst and privacy keys");
            }
        }
    }

    private static Map<Integer, String> merge(Map<Integer, String> a, Map<Integer, String> b) {
        java.util.HashMap<Integer, String> out = new java.util.HashMap<>(a);
        out.putAll(b);
        return out;
    }
}
