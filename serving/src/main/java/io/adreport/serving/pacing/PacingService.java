package io.adreport.serving.pacing;

import io.adreport.schema.time.UtcDay;
import io.adreport.campaigns.budget.BudgetReader;
import io.adreport.campaigns.budget.BudgetStatus;
import io.adreport.campaigns.budget.PacingRates;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.metrics.Metrics;
import io.adreport.campaigns.registry.CampaignRegistry;
import io.adreport.schema.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Budget enforcement and pacing for the ad server, off the request path: every
 * {@code serve.pacing.interval.ms} its own thread reads, for each serving campaign of the
 * registry copy that has a budget, the budget status ({@link BudgetReader}: one short prefix scan
 * of the campaign's spend shards) and publishes
 * <ul>
 *   <li>{@code exhausted} when spent + the shards' unflushed bound + the spend still to land at the
 *       campaign's recent rate within {@code serve.pacing.lookahead.ms} reaches the daily or
 *       lifetime budget ({@link PacingController#exhaustedAhead}) — such a campaign is not served
 *       at all. The recent rate is the lifetime spend's growth over the last second of reads
 *       ({@link SpendRate});</li>
 *   <li>a pass-through rate from {@link PacingController} for a daily budget (1 without one): the
 *       share of eligible requests on which the campaign takes part.</li>
 * </ul>
 * A request then costs one map lookup and one random draw per campaign ({@link #admit}).
 *
 * <p>Concurrency: the pacing thread alone writes {@code states} (its controller states) and
 * replaces {@code published} (an immutable map) whole; request threads only read
 * {@code published}. A campaign whose read fails keeps its last published decision (counted in
 * {@code adreport_pacing_read_failures_total}); one that was never read is admitted.
 */
public final class PacingService implements PacingRates, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PacingService.class);

    /** What a request sees of a campaign. */
    public record Decision(double rate, boolean exhausted, long publishedAt) {
    }

    private final CampaignRegistry registry;
    private final BudgetReader budgets;
    private final Clock clock;
    private final ScheduledExecutorService timer;
    private final Map<String, PacingController.State> states = new HashMap<>();
    private final Map<String, SpendRate> rates = new HashMap<>();
    private final long lookaheadMillis;
    private final Metrics.Counter failures;
    private final Metrics.Counter exhaustedSkips;
    private final Metrics.Counter pacedSkips;
    private volatile Map<String, Decision> published = Map.of();

    /**
     * @param lookahead how far ahead spend is projected when deciding {@code exhausted} (zero:
     *                  exhausted only once spent + unflushed reaches the budget)
     */
    public PacingService(CampaignRegistry registry, BudgetReader budgets, Clock clock, Metrics metrics, Duration lookahead) {
        this.lookaheadMillis = lookahead.toMillis();
        this.registry = registry;
        this.budgets = budgets;
        this.clock = clock;
        this.failures = metrics.counter("adreport_pacing_read_failures_total", "Budget reads of the pacing service that failed");
        this.exhaustedSkips = metrics.counter("adreport_serve_exhausted_skips_total", "Campaigns skipped by a serve request: budget exhausted");
        this.pacedSkips = metrics.counter("adreport_serve_paced_skips_total", "Campaigns skipped by a serve request: throttled by pacing");
        metrics.gauge("adreport_pacing_exhausted_campaigns", "Campaigns whose budget is exhausted",
                () -> published.values().stream().filter(Decision::exhausted).count());
        this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("adreport-pacing"));
    }

    /** Runs {@link #tick()} now and then every {@code every}. */
    public PacingService start(Duration every) {
        timer.scheduleWithFixedDelay(this::tickQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warn("pacing tick failed: {}", e.toString());
        }
    }

    /** One round over the registry copy (the pacing thread; tests call it directly). */
    public synchronized void tick() {
        LocalDate today = UtcDay.dateToday(clock);
        Map<String, Decision> next = new HashMap<>();
        for (Campaign c : registry.campaigns()) {
            if (c.budget() == null || !c.servesOn(today)) {
                continue;
            }
            try {
                BudgetStatus s = budgets.read(c);
                double rate = 1.0;
                if (c.budget().hasDaily()) {
                    long now = clock.millis();
                    double fraction = s.pacing().dayFraction();
                    long target = s.pacing().targetMicros();
                    long dayMillis = dayLength(c, now);
                    PacingController.State st = PacingController.next(states.getOrDefault(c.key(), PacingController.State.initial()),
                            s.day(), s.spentTodayMicros(), now, c.budget().dailyMicros(), target, dayMillis);
                    states.put(c.key(), st);
                    rate = fraction >= 1.0 ? 1.0 : st.rate();
                }
                long now = clock.millis();
                double recent = rates.computeIfAbsent(c.key(), k -> new SpendRate()).observe(now, s.spentLifetimeMicros());
                boolean exhausted = s.exhausted()
                        || (c.budget().hasDaily() && PacingController.exhaustedAhead(s.spentTodayMicros(), s.unflushedBoundMicros(),
                                recent, lookaheadMillis, c.budget().dailyMicros()))
                        || (c.budget().hasLifetime() && PacingController.exhaustedAhead(s.spentLifetimeMicros(),
                                s.unflushedBoundMicros(), recent, lookaheadMillis, c.budget().lifetimeMicros()));
                next.put(c.key(), new Decision(rate, exhausted, now));
            } catch (Exception e) {
                failures.inc();
                Decision last = published.get(c.key());
                if (last != null) {
                    next.put(c.key(), last);
                }
                LOG.debug("budget read of {} failed: {}", c.key(), e.toString());
            }
        }
        states.keySet().retainAll(next.keySet());
        rates.keySet().retainAll(next.keySet());
        published = Map.copyOf(next);
    }

    private static long dayLength(Campaign c, long now) {
        return c.budget().dayAt(now).lengthMillis();
    }

    /** The published decision of a campaign, if it is paced. */
    public Decision decision(String campaignKey) {
        return published.get(campaignKey);
    }

    /**
     * Whether a request may consider the campaign: null when yes, else {@code exhausted} or
     * {@code paced} (not drawn under its pass-through rate).
     */
    public String admit(String campaignKey, RandomGenerator rng) {
        Decision d = published.get(campaignKey);
        if (d == null) {
            return null;
        }
        if (d.exhausted()) {
            exhaustedSkips.inc();
            return "exhausted";
        }
        if (d.rate() < 1.0 && rng.nextDouble() >= d.rate()) {
            pacedSkips.inc();
            return "paced";
        }
        return null;
    }

    @Override
    public Double rate(String campaignKey) {
        Decision d = published.get(campaignKey);
        return d == null ? null : d.rate();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
