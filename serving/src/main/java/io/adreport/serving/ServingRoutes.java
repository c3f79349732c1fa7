package io.adreport.serving;

import io.adreport.report.api.ApiRoute;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileModel;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.check.AdController;
import io.adreport.serving.check.CapDecider;
import io.adreport.serving.check.CheckController;
import io.adreport.serving.registry.CampaignRegistry;
import io.javalin.http.HandlerType;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;

/**
 * The ad server's endpoints, mounted on the report API's server (same keys, errors, metrics and
 * OpenAPI document). {@link #close()} stops the registry refresh.
 */
public final class ServingRoutes implements AutoCloseable {
    private final CampaignRegistry registry;
    private final List<ApiRoute> routes;

    private ServingRoutes(CampaignRegistry registry, List<ApiRoute> routes) {
        this.registry = registry;
        this.routes = routes;
    }

    /** The serving routes for the tables of {@code layout}; none when the cube has no profiles. */
    public static ServingRoutes create(Connection connection, TableLayout layout, DeviceHasher hasher, ProfileConfig profiles,
                                       ServeConfig config, Clock clock, Metrics metrics) {
        if (!ProfileModel.supported(layout.cube()) || hasher == null) {
            return new ServingRoutes(null, List.of());
        }
        CampaignRegistry registry = new CampaignRegistry(new CampaignStore(connection, layout), new ZoneStore(connection, layout), clock, metrics)
                .start(config.registryRefresh());
        CapDecider decider = new CapDecider(connection, layout, registry, hasher, new UnidentifiedDevices(hasher, profiles.placeholders()),
                config, clock, metrics);
        CheckController check = new CheckController(decider, config, metrics);
        ApiRoute route = new ApiRoute(HandlerType.POST, "/v1/serve/check",
                "Frequency caps and segments of one device for up to serve.max.campaigns campaigns (adserver keys); one Get",
                "serving", true, List.of(),
                Map.of(200, "per campaign allowed, or the reached window and count; the device's segments",
                        400, "a field breaks a rule", 401, "no, unknown or revoked API key", 403, "not an adserver key",
                        503, "HBase unavailable"),
                check::check);
        AdController ads = new AdController(decider, registry, config, clock, java.util.concurrent.ThreadLocalRandom::current, metrics);
        ApiRoute ad = new ApiRoute(HandlerType.POST, "/v1/serve/ad",
                "Choose the ad(s) for a request: highest eCPM (keyword score) among active, in-flight, not-capped campaigns of the zone, "
                        + "random among ties; impression id and beacon URLs; one Get", "serving", true, List.of(),
                Map.of(200, "chosen ads in order of preference (empty when none is eligible)", 400, "a field breaks a rule",
                        401, "no, unknown or revoked API key", 403, "not an adserver key", 503, "HBase unavailable"),
                ads::serve);
        return new ServingRoutes(registry, List.of(route, ad));
    }

    public List<ApiRoute> routes() {
        return routes;
    }

    /** The registry copy (tests refresh it instead of waiting). */
    public CampaignRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        if (registry != null) {
            registry.close();
        }
    }
}
