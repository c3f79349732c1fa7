package io.adreport.schema.inventory;

import io.adreport.schema.campaign.CampaignInvalid;
import java.util.List;

/**
 * One ad a zone may show: a campaign's creative, its eCPM bid in micros (per thousand
 * impressions) and its keywords (lower case, for keyword scoring).
 */
public record Ad(String advertiser, String campaign, String creative, long ecpmMicros, List<String> keywords) {
    public static final int MAX_KEYWORDS = 32;

    public Ad {
        if (ecpmMicros <= 0) {
            throw new CampaignInvalid("ads.ecpmMicros", "must be a positive integer");
        }
        if (keywords.size() > MAX_KEYWORDS) {
            throw new CampaignInvalid("ads.keywords", "at most " + MAX_KEYWORDS);
        }
        keywords = keywords.stream().map(k -> k.toLowerCase(java.util.Locale.ROOT)).distinct().toList();
    }

    /** {@code advertiser/campaign}. */
    public String campaignKey() {
        return advertiser + "/" + campaign;
    }
}
