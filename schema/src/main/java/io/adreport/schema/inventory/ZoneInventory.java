package io.adreport.schema.inventory;

import io.adreport.schema.campaign.CampaignInvalid;
import java.util.List;

/**
 * The ads a publisher's zone may show. {@code site} is the publisher (the cube's tenant
 * dimension of publisher rollups), {@code zone} a zone of it.
 */
public record ZoneInventory(String site, String zone, List<Ad> ads, long version) {
    public static final int MAX_ADS = 1000;

    public ZoneInventory {
        ads = List.copyOf(ads);
        if (ads.size() > MAX_ADS) {
            throw new CampaignInvalid("ads", "at most " + MAX_ADS + " ads per zone");
        }
    }

    public String key() {
        return site + "/" + zone;
    }
}
