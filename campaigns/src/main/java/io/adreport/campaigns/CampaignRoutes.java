package io.adreport.campaigns;

import io.adreport.campaigns.budget.BudgetReader;
import io.adreport.campaigns.budget.BudgetStatus;
import io.adreport.campaigns.budget.PacingRates;
import io.adreport.http.ApiRoute;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.table.TableLayout;
import io.javalin.http.HandlerType;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;

/**
 * The campaign registry's routes: campaigns, their budgets and zones, mounted on a service's server
 * (same keys, errors, metrics and OpenAPI document as the routes beside them).
 */
public final class CampaignRoutes {
    private CampaignRoutes() {
    }

    /**
     * The campaign, budget and zone routes over the tables of {@code layout}; none when the cube has
     * no device profiles. {@code rates} are the pacing rates the budget endpoint reports
     * ({@link PacingRates#NONE} without a pacing service).
     */
    public static List<ApiRoute> create(Connection connection, TableLayout layout, DayStatusStore meta, Clock clock, PacingRates rates) {
        List<ApiRoute> routes = new ArrayList<>();
        if (ProfileModel.supported(layout.cube())) {
            Map<Integer, String> common = Map.of(401, "no, unknown or revoked API key", 403, "the key may not read this");
            BudgetReader budgets = BudgetReader.supported(layout)
                    ? new BudgetReader(connection, layout, meta, clock) : null;
            CampaignController campaigns = new CampaignController(new CampaignStore(connection, layout), budgets, rates);
            List<ApiRoute.Param> ids = List.of(ApiRoute.Param.path("advertiser", "advertiser id"), ApiRoute.Param.path("campaign", "campaign id"));
            routes.add(new ApiRoute(HandlerType.PUT, "/v1/campaigns/{advertiser}/{campaign}",
                    "Create or change a campaign: status, start, end, frequencyCaps, budget (advertiser: own; analyst: all)", "campaigns", true,
                    ids, merge(common, Map.of(200, "changed", 201, "created", 400, "a field breaks a rule", 409, "changed concurrently")),
                    campaigns::put).withRequest(CampaignForms.Change.class).withAnswer(CampaignForms.Stored.class));
            routes.add(new ApiRoute(HandlerType.GET, "/v1/campaigns/{advertiser}/{campaign}", "One campaign", "campaigns", true,
                    ids, merge(common, Map.of(200, "the campaign", 404, "no such campaign")), campaigns::get)
                    .withAnswer(CampaignForms.Stored.class));
            routes.add(new ApiRoute(HandlerType.GET, "/v1/campaigns/{advertiser}/{campaign}/budget",
                    "Spend against the budget: spentTodayMicros, spentLifetimeMicros, remainingMicros, unflushedBoundMicros, exhausted, "
                            + "pacing {rate, targetMicros}, burn (exact for reconciled days)", "campaigns", true,
                    ids, merge(common, Map.of(200, "the budget status", 404, "no such campaign", 503, "HBase unavailable")),
                    campaigns::budget).withAnswer(BudgetStatus.class));
            ZoneController zones = new ZoneController(new ZoneStore(connection, layout));
            List<ApiRoute.Param> zoneIds = List.of(ApiRoute.Param.path("site", "site (publisher id)"), ApiRoute.Param.path("zone", "zone id"));
            routes.add(new ApiRoute(HandlerType.PUT, "/v1/zones/{site}/{zone}",
                    "Set the ads a zone may show: campaign, creative, ecpmMicros, keywords (publisher: own site; analyst: all)",
                    "campaigns", true, zoneIds, merge(common, Map.of(200, "changed", 201, "created", 400, "a field breaks a rule")),
                    zones::put).withRequest(CampaignForms.ZoneChange.class).withAnswer(CampaignForms.Zone.class));
            routes.add(new ApiRoute(HandlerType.GET, "/v1/zones/{site}/{zone}", "One zone's ads", "campaigns", true, zoneIds,
                    merge(common, Map.of(200, "the zone", 404, "no such zone")), zones::get)
                    .withAnswer(CampaignForms.Zone.class));
            routes.add(new ApiRoute(HandlerType.GET, "/v1/campaigns", "Campaigns the key manages", "campaigns", true,
                    List.of(ApiRoute.Param.query("advertiser", "string", "analysts: one advertiser's campaigns")),
                    merge(common, Map.of(200, "campaigns")), campaigns::list)
                    .withAnswer(CampaignForms.Listed.class));
        }
        return List.copyOf(routes);
    }

    private static Map<Integer, String> merge(Map<Integer, String> a, Map<Integer, String> b) {
        java.util.HashMap<Integer, String> out = new java.util.HashMap<>(a);
        out.putAll(b);
        return out;
    }
}
