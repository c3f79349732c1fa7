package io.adreport.serving;

import io.adreport.campaigns.budget.BudgetReader;
import io.adreport.campaigns.budget.PacingRates;
import io.adreport.campaigns.registry.CampaignRegistry;
import io.adreport.http.ApiRoute;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.trust.BeaconSigner;
import io.adreport.schema.trust.TrustConfig;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.check.AdController;
import io.adreport.serving.check.CapDecider;
import io.adreport.serving.check.CheckController;
import io.adreport.serving.pacing.PacingService;
import io.javalin.http.HandlerType;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;

/**
 * The ad server's endpoints, mounted on the service's server beside the other routes (same keys, errors,
 * metrics and OpenAPI document). {@link #close()} stops the registry refresh and the pacing service.
 */
public final class ServingRoutes implements AutoCloseable {
    private final CampaignRegistry registry;
    private final List<ApiRoute> routes;
    private final PacingService pacing;

    private ServingRoutes(CampaignRegistry registry, List<ApiRoute> routes, PacingService pacing) {
        this.registry = registry;
        this.routes = routes;
        this.pacing = pacing;
    }

    /** The serving routes for the tables of {@code layout}; none when the cube has no profiles. */
    public static ServingRoutes create(Connection connection, TableLayout layout, DeviceHasher hasher, ProfileConfig profiles,
                                       ServeConfig config, Clock clock, Metrics metrics) {
        return create(connection, layout, hasher, profiles, config, clock, metrics, BeaconSigner.of(TrustConfig.defaults(), clock));
    }

    /** As above, signing the beacon URLs of {@code /v1/serve/ad} with {@code signer} (unsigned when it has no key). */
    public static ServingRoutes create(Connection connection, TableLayout layout, DeviceHasher hasher, ProfileConfig profiles,
                                       ServeConfig config, Clock clock, Metrics metrics, BeaconSigner signer) {
        return create(connection, layout, hasher == null ? null : DeviceHashes.of(hasher), profiles, config, clock, metrics, signer);
    }

    /**
     * As above with the device's hashes: while the secret rotates, checks and ad selection read the
     * device's rows under both secrets ({@link DeviceHashes#all}); beacons carry the current hash.
     */
    public static ServingRoutes create(Connection connection, TableLayout layout, DeviceHashes hasher, ProfileConfig profiles,
                                       ServeConfig config, Clock clock, Metrics metrics, BeaconSigner signer) {
        if (!ProfileModel.supported(layout.cube()) || hasher == null) {
            return new ServingRoutes(null, List.of(), null);
        }
        CampaignRegistry registry = new CampaignRegistry(new CampaignStore(connection, layout), new ZoneStore(connection, layout), clock, metrics)
                .start(config.registryRefresh());
        PacingService pacing = BudgetReader.supported(layout)
                ? new PacingService(registry, new BudgetReader(connection, layout, new DayStatusStore(connection, layout, clock), clock), clock, metrics,
                        config.pacingLookahead())
                        .start(config.pacingInterval())
                : null;
        CapDecider decider = new CapDecider(connection, layout, registry, hasher, new UnidentifiedDevices(hasher, profiles.placeholders()),
                config, clock, metrics, pacing, java.util.concurrent.ThreadLocalRandom::current);
        CheckController check = new CheckController(decider, config, metrics);
        ApiRoute route = new ApiRoute(HandlerType.POST, "/v1/serve/check",
                "Frequency caps and segments of one device for up to serve.max.campaigns campaigns (adserver keys); one Get",
                "serving", true, List.of(),
                Map.of(200, "per campaign allowed, or the reached window and count; the device's segments",
                        400, "a field breaks a rule", 401, "no, unknown or revoked API key", 403, "not an adserver key",
                        503, "HBase unavailable"),
                check::check).withRequest(CheckController.requestType()).withAnswer(CheckController.answerType());
        AdController ads = new AdController(decider, registry, layout.cube(), config, clock, java.util.concurrent.ThreadLocalRandom::current,
                metrics, signer);
        ApiRoute ad = new ApiRoute(HandlerType.POST, "/v1/serve/ad",
                "Choose the ad(s) for a request: highest eCPM (keyword score) among active, in-flight, not-exhausted, not-capped "
                        + "campaigns of the zone, throttled by their pacing rate, "
                        + "random among ties; impression id and beacon URLs; one Get", "serving", true, List.of(),
                Map.of(200, "chosen ads in order of preference (empty when none is eligible)", 400, "a field breaks a rule",
                        401, "no, unknown or revoked API key", 403, "not an adserver key", 503, "HBase unavailable"),
                ads::serve).withRequest(AdController.requestType()).withAnswer(AdController.Response.class);
        return new ServingRoutes(registry, List.of(route, ad), pacing);
    }

    public List<ApiRoute> routes() {
        return routes;
    }

    /** The registry copy (tests refresh it instead of waiting). */
    public CampaignRegistry registry() {
        return registry;
    }

    /** The pacing service (null for a cube without spend): its rates for the budget endpoint, its ticks for tests. */
    public PacingService pacing() {
        return pacing;
    }

    /** The rates the budget endpoint reports: for {@code CampaignRoutes.create(..., rates)}. */
    public PacingRates rates() {
        return pacing == null ? PacingRates.NONE : pacing;
    }

    @Override
    public void close() {
        if (pacing != null) {
            pacing.close();
        }
        if (registry != null) {
            registry.close();
        }
    }
}
