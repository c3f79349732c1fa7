package io.adreport.campaigns;

import io.adreport.http.RecordSchemas;
import io.adreport.http.RecordSchemas.Nullable;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignJson;
import io.adreport.schema.inventory.ZoneJson;
import java.time.LocalDate;
import java.util.List;

/**
 * The JSON forms of {@link CampaignJson} and {@link ZoneJson} as records, for the OpenAPI document
 * only: those classes read and write the JSON by hand, and these records say what they read and
 * write. The route test validates every real answer against the schemas made from them.
 */
final class CampaignForms {
    private CampaignForms() {
    }

    /** A frequency cap: at most {@code max} views per {@code window} (5m, 2h, 14d...). */
    @RecordSchemas.Name("FrequencyCap")
    record Cap(int max, String window) {
    }

    /** A budget: either amount may be left out (not both); {@code timeZone} defaults to UTC. */
    @RecordSchemas.Name("CampaignBudget")
    record Budget(Long dailyMicros, Long lifetimeMicros, @Nullable String timeZone) {
    }

    /** The body of {@code PUT /v1/campaigns/{advertiser}/{campaign}}; identity fields, if sent, must match the path. */
    @RecordSchemas.Name("CampaignChange")
    record Change(@Nullable Campaign.Status status, @Nullable LocalDate start, @Nullable LocalDate end,
                  @Nullable List<Cap> frequencyCaps, @Nullable Budget budget,
                  @Nullable String advertiser, @Nullable String campaign, Long version) {
    }

    /** A stored campaign, as {@link CampaignJson#write} answers it. */
    @RecordSchemas.Name("Campaign")
    record Stored(String advertiser, String campaign, Campaign.Status status, @Nullable LocalDate start, @Nullable LocalDate end,
                  List<Cap> frequencyCaps, @Nullable Budget budget, long version) {
    }

    /** The answer of {@code GET /v1/campaigns}. */
    @RecordSchemas.Name("CampaignList")
    record Listed(List<Stored> campaigns) {
    }

    /** One ad a zone may show. */
    @RecordSchemas.Name("ZoneAd")
    record Ad(String advertiser, String campaign, String creative, long ecpmMicros, @Nullable List<String> keywords) {
    }

    /** The body of {@code PUT /v1/zones/{site}/{zone}}; identity fields, if sent, are ignored. */
    @RecordSchemas.Name("ZoneChange")
    record ZoneChange(List<Ad> ads, @Nullable String site, @Nullable String zone, Long version) {
    }

    /** A stored zone, as {@link ZoneJson#write} answers it. */
    @RecordSchemas.Name("Zone")
    record Zone(String site, String zone, long version, List<Ad> ads) {
    }
}
