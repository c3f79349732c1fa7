package io.adreport.campaigns.budget;

/**
 * Where the budget endpoint finds the pass-through rate that a pacing service in this process
 * publishes ({@code serving}); {@link #NONE} when the report API runs without one.
 */
@FunctionalInterface
public interface PacingRates {
    PacingRates NONE = key -> null;

    /** The current rate of campaign {@code advertiser/campaign}, or null when it is not paced here. */
    Double rate(String campaignKey);
}
