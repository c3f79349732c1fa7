package io.adreport.schema.campaign;

/**
 * At most {@code max} impressions of a campaign to one device within any rolling
 * {@code window}.
 */
public record FrequencyCap(int max, CapWindow window) {
    /**
     * Caps above this are refused: a device past it is not a human (see the hot-device alarm).
     * Also the number of views per device and campaign the profile keeps and a check reads
     * ({@code ViewCells.MAX_VIEWS_KEPT} is this value), which is what makes every accepted cap
     * exact: raising it raises the storage bound of a hot device with it.
     */
    public static final int MAX_VIEWS = 10_000;

    public FrequencyCap {
        if (max < 1 || max > MAX_VIEWS) {
            throw new CampaignInvalid("frequencyCaps.max", "must be between 1 and " + MAX_VIEWS);
        }
    }
}
