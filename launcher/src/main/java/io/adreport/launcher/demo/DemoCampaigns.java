package io.adreport.launcher.demo;

import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.campaign.CapWindow;
import io.adreport.schema.campaign.FrequencyCap;
import java.io.IOException;
import java.util.List;

/**
 * Registers the demo network's campaigns with frequency caps (3 per hour, 12 per day), so the
 * simulated ad server's checks bite on the heavy devices: their impressions of a campaign stop
 * at the cap and go to other campaigns. A campaign already in the registry is left as it is (an
 * operator's change survives a restart).
 */
public final class DemoCampaigns {
    static final List<FrequencyCap> CAPS = List.of(
            new FrequencyCap(3, CapWindow.parse("frequencyCaps.window", "1h")),
            new FrequencyCap(12, CapWindow.parse("frequencyCaps.window", "1d")));

    private DemoCampaigns() {
    }

    /** @return how many campaigns were added */
    public static int register(CampaignStore store) throws IOException {
        int added = 0;
        for (String key : AdNetwork.DEFAULT.campaignKeys()) {
            int slash = key.indexOf('/');
            String advertiser = key.substring(0, slash);
            String campaign = key.substring(slash + 1);
            if (store.get(advertiser, campaign).isEmpty()) {
                try {
                    store.put(new Campaign(advertiser, campaign, Campaign.Status.active, null, null, CAPS, 0));
                    added++;
                } catch (CampaignStore.Conflict e) {
                    // registered concurrently: theirs stands
                }
            }
        }
        return added;
    }
}
