package io.adreport.launcher.demo;

import io.adreport.schema.campaign.Budget;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.campaign.CapWindow;
import io.adreport.schema.campaign.FrequencyCap;
import io.adreport.schema.inventory.Ad;
import io.adreport.schema.inventory.ZoneInventory;
import io.adreport.schema.inventory.ZoneStore;
import java.io.IOException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * Registers the demo network as an ad server sees it: every campaign with frequency caps (3 per
 * hour, 12 per day) and a budget, and every zone with the ads it may show (each campaign's
 * creatives at the campaign's bid). The ad server then sells each slot to the highest bidder that
 * is not capped on the device, not out of budget and drawn under its pacing rate, so the live
 * traffic shows budgets and pacing at work: big bidders are throttled onto their even curve and the
 * slots go to the next ones; one campaign has a small lifetime budget and stops when it is spent.
 * Daily budgets are cut in four advertiser zones. A campaign or zone already in the registry is
 * left as it is (an operator's change survives a restart).
 */
public final class DemoCampaigns {
    static final List<FrequencyCap> CAPS = List.of(
            new FrequencyCap(3, CapWindow.parse("frequencyCaps.window", "1h")),
            new FrequencyCap(12, CapWindow.parse("frequencyCaps.window", "1d")));
    private static final long[] DAILY = {20_000_000L, 60_000_000L, 150_000_000L, 400_000_000L};
    private static final List<ZoneId> ZONES = List.of(ZoneId.of("UTC"), ZoneId.of("America/New_York"), ZoneId.of("Europe/Berlin"),
            ZoneId.of("Asia/Tokyo"));

    private DemoCampaigns() {
    }

    /** The bid of campaign number {@code n}: 1.00 .. 4.50 per thousand impressions. */
    static long ecpmMicros(int n) {
        return 1_000_000L + (n * 7L % 8) * 500_000L;
    }

    /** The budget of campaign number {@code n}; the last one has only a small lifetime budget. */
    static Budget budget(int n, int campaigns) {
        if (n == campaigns - 1) {
            return new Budget(0, 5_000_000L, ZoneId.of("UTC"));
        }
        return new Budget(DAILY[n % DAILY.length], 0, ZONES.get(n % ZONES.size()));
    }

    /** @return how many campaigns were added */
    public static int register(CampaignStore store) throws IOException {
        return register(store, null);
    }

    /** As {@link #register(CampaignStore)}, also the zones' ads when {@code zones} is not null. */
    public static int register(CampaignStore store, ZoneStore zones) throws IOException {
        int added = 0;
        List<String> keys = AdNetwork.DEFAULT.campaignKeys();
        for (int n = 0; n < keys.size(); n++) {
            String key = keys.get(n);
            int slash = key.indexOf('/');
            String advertiser = key.substring(0, slash);
            String campaign = key.substring(slash + 1);
            if (store.get(advertiser, campaign).isEmpty()) {
                try {
                    store.put(new Campaign(advertiser, campaign, Campaign.Status.active, null, null, CAPS, 0, budget(n, keys.size())));
                    added++;
                } catch (CampaignStore.Conflict e) {
                    // registered concurrently: theirs stands
                }
            }
        }
        if (zones != null) {
            List<Ad> ads = new ArrayList<>();
            int n = 0;
            for (AdNetwork.Advertiser a : AdNetwork.DEFAULT.advertisers()) {
                for (AdNetwork.Campaign c : a.campaigns()) {
                    for (AdNetwork.Creative cr : c.creatives()) {
                        ads.add(new Ad(a.id(), c.id(), cr.id(), ecpmMicros(n), List.of()));
                    }
                    n++;
                }
            }
            for (AdNetwork.Publisher p : AdNetwork.DEFAULT.publishers()) {
                for (AdNetwork.Zone z : p.zones()) {
                    if (zones.get(p.id(), z.id()).isEmpty()) {
                        zones.put(new ZoneInventory(p.id(), z.id(), ads, 0));
                    }
                }
            }
        }
        return added;
    }
}
