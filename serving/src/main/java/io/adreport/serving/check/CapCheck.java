package io.adreport.serving.check;

import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.FrequencyCap;

/**
 * The frequency-cap rule, pure: a campaign may be shown to a device when, for every cap
 * {@code (max, window)}, fewer than {@code max} of the device's views of it fall inside the
 * rolling window ({@link io.adreport.schema.campaign.CapWindow#contains}). When several caps are
 * reached, the answer names the shortest window (the one that frees up first is the longest;
 * the shortest is what an operator reads first).
 */
final class CapCheck {
    private CapCheck() {
    }

    /**
     * @param views     the device's view times of this campaign, newest first (as stored)
     * @param viewCount how many entries of {@code views} are valid
     * @param now       check time, epoch millis
     * @return the first reached cap and its count, or null when allowed
     */
    static Reached firstReached(Campaign campaign, long[] views, int viewCount, long now) {
        for (FrequencyCap cap : campaign.caps()) {
            int inside = 0;
            for (int i = 0; i < viewCount; i++) {
                if (cap.window().contains(views[i], now)) {
                    inside++;
                } else if (views[i] <= now) {
                    break; // newest first: every later view is older still
                }
            }
            if (inside >= cap.max()) {
                return new Reached(cap, inside);
            }
        }
        return null;
    }

    /** A cap that is reached and how many views its window holds. */
    record Reached(FrequencyCap cap, int count) {
    }
}
