package io.adreport.campaigns;

import io.adreport.campaigns.budget.BudgetReader;
import io.adreport.campaigns.budget.PacingRates;
import io.adreport.http.auth.AccessDenied;
import io.adreport.http.auth.Role;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignJson;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.cube.ProfileModel;
import io.javalin.http.ConflictResponse;
import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import java.io.IOException;
import java.util.List;
import io.adreport.http.BearerAuth;

/**
 * The campaign registry over HTTP: {@code PUT/GET /v1/campaigns/{advertiser}/{campaign}} and
 * {@code GET /v1/campaigns}, and a campaign's spend against its budget ({@code .../budget},
 * {@link BudgetReader}). An advertiser key manages only its own campaigns, an analyst all;
 * other keys (publishers, ad servers) none. Bodies are {@link CampaignJson}; a broken rule is a
 * 400 naming the field. Readers of the registry (the serving endpoints) refresh their copy every
 * few seconds, so a change takes effect everywhere without a restart.
 */
final class CampaignController {
    private final CampaignStore store;
    private final BudgetReader budgets;
    private final PacingRates rates;

    CampaignController(CampaignStore store, BudgetReader budgets, PacingRates rates) {
        this.store = store;
        this.budgets = budgets;
        this.rates = rates;
    }

    /** {@code GET /v1/campaigns/{advertiser}/{campaign}/budget}: spend against the budget, pacing, burn curve. */
    void budget(Context ctx) throws IOException {
        Campaign c = ownedCampaign(ctx);
        if (budgets == null) {
            throw new NotFoundResponse("this cube keeps no campaign spend (it needs a costMicros field and a spendMicros metric)");
        }
        ctx.json(budgets.read(c).withRate(rates.rate(c.key())));
    }

    void put(Context ctx) throws IOException {
        String advertiser = ctx.pathParam("advertiser");
        String campaign = ctx.pathParam("campaign");
        requireOwner(BearerAuth.role(ctx), advertiser);
        Campaign parsed = CampaignJson.parse(advertiser, campaign, ctx.bodyAsBytes(), 0);
        try {
            Campaign stored = store.put(parsed);
            ctx.status(stored.version() == 1 ? 201 : 200).contentType("application/json").result(CampaignJson.write(stored));
        } catch (CampaignStore.Conflict e) {
            throw new ConflictResponse(e.getMessage());
        }
    }

    void get(Context ctx) throws IOException {
        ctx.contentType("application/json").result(CampaignJson.write(ownedCampaign(ctx)));
    }

    /** The campaign of the path, once the caller's key may manage it; 404 when there is none. */
    private Campaign ownedCampaign(Context ctx) throws IOException {
        String advertiser = ctx.pathParam("advertiser");
        String campaign = ctx.pathParam("campaign");
        requireOwner(BearerAuth.role(ctx), advertiser);
        return store.get(advertiser, campaign)
                .orElseThrow(() -> new NotFoundResponse("no campaign " + advertiser + "/" + campaign));
    }

    void list(Context ctx) throws IOException {
        Role role = BearerAuth.role(ctx);
        String advertiser;
        if (role.isAnalyst()) {
            advertiser = ctx.queryParam("advertiser");
        } else if (ProfileModel.ADVERTISER.equals(role.kind())) {
            advertiser = role.id();
        } else {
            throw new AccessDenied("only advertiser and analyst keys manage campaigns");
        }
        List<Campaign> all = store.list(advertiser);
        StringBuilder sb = new StringBuilder("{\"campaigns\":[");
        for (int i = 0; i < all.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(new String(CampaignJson.write(all.get(i)), java.nio.charset.StandardCharsets.UTF_8));
        }
        ctx.contentType("application/json").result(sb.append("]}").toString());
    }

    private static void requireOwner(Role role, String advertiser) {
        if (role.isAnalyst()) {
            return;
        }
        if (!ProfileModel.ADVERTISER.equals(role.kind())) {
            throw new AccessDenied("only advertiser and analyst keys manage campaigns");
        }
        if (!role.id().equals(advertiser)) {
            throw new AccessDenied("an advertiser key manages only its own campaigns");
        }
    }
}
