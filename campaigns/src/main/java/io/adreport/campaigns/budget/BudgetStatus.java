package io.adreport.campaigns.budget;

import io.adreport.http.RecordSchemas;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A campaign's spend against its budget at one moment, as {@code GET
 * /v1/campaigns/{advertiser}/{campaign}/budget} answers it.
 *
 * @param day                  the advertiser's day (in {@code timeZone}) that "today" means
 * @param dailyMicros          the daily budget, or null
 * @param lifetimeMicros       the lifetime budget, or null
 * @param spentTodayMicros     spend of the advertiser's day so far: exact counters for reconciled UTC
 *                             days, flushed live spend for the others
 * @param spentLifetimeMicros  spend since the campaign's first impression, same sources
 * @param remainingMicros      the smaller remainder of the budgets set (never negative), or null without a budget
 * @param unflushedBoundMicros the most spend that may still be in the aggregators' memory
 * @param exhausted            spent + unflushed bound has reached a budget
 * @param pacing               the pacing state
 * @param burn                 cumulative spend of the day by quarter hour beside the even curve
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BudgetStatus(String advertiser, String campaign, String day, String timeZone, Long dailyMicros, Long lifetimeMicros,
                           long spentTodayMicros, long spentLifetimeMicros, Long remainingMicros, long unflushedBoundMicros,
                           boolean exhausted, Pacing pacing, List<BurnPoint> burn) {

    /**
     * @param rate         the pass-through rate the pacing service publishes (1 = every eligible
     *                     request), or null when no pacing service runs in this process
     * @param targetMicros where the even curve says today's spend should be now
     * @param at           the moment of {@code targetMicros} (ISO-8601)
     * @param dayFraction  the part of the advertiser's day gone
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RecordSchemas.Name("Pacing")
    public record Pacing(Double rate, Long targetMicros, String at, double dayFraction) {
    }

    /** Cumulative spend at the end of a quarter hour and the curve's value there. */
    @RecordSchemas.Name("BurnPoint")
    public record BurnPoint(String time, long spentMicros, Long targetMicros) {
    }

    /** The same status with the pacing service's rate. */
    public BudgetStatus withRate(Double rate) {
        return new BudgetStatus(advertiser, campaign, day, timeZone, dailyMicros, lifetimeMicros, spentTodayMicros, spentLifetimeMicros,
                remainingMicros, unflushedBoundMicros, exhausted,
                new Pacing(rate, pacing.targetMicros(), pacing.at(), pacing.dayFraction()), burn);
    }
}
