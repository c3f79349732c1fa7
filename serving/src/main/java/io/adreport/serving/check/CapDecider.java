package io.adreport.serving.check;

import io.adreport.http.BearerAuth;
import io.adreport.http.auth.AccessDenied;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.ServeConfig;
import io.adreport.campaigns.registry.CampaignRegistry;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.adreport.serving.pacing.PacingService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.apache.hadoop.hbase.client.Connection;

/**
 * The one serving decision behind {@code /v1/serve/check} and {@code /v1/serve/ad}: may each of
 * these campaigns be shown to this device now? Campaigns come from the in-memory registry copy,
 * the device's history from one profile Get ({@link ProfileReader}) restricted to the capped
 * campaigns asked about; the cap rule is {@link CapCheck}'s. A campaign that is paused or outside
 * its dates is refused; an unidentified device (empty, all-zero, placeholder) is refused on capped
 * campaigns when {@code serve.unidentified=deny} and never read; an unregistered campaign has no
 * caps and is allowed (the ad endpoint does not serve unregistered campaigns at all). With a
 * {@link PacingService}, a campaign whose budget is exhausted is refused, and one with a
 * pass-through rate below 1 takes part in that share of requests only (one random draw each);
 * both are decided from memory before the profile is read.
 */
public final class CapDecider {
    private final ProfileReader reader;
    private final CampaignRegistry registry;
    private final DeviceHasher hasher;
    private final UnidentifiedDevices unidentified;
    private final boolean denyUnidentified;
    private final Clock clock;
    private final Metrics.Counter staleReads;
    private final PacingService pacing;
    private final Supplier<RandomGenerator> rng;

    public CapDecider(Connection connection, TableLayout layout, CampaignRegistry registry, DeviceHasher hasher,
                      UnidentifiedDevices unidentified, ServeConfig config, Clock clock, Metrics metrics) {
        this(connection, layout, registry, hasher, unidentified, config, clock, metrics, null, ThreadLocalRandom::current);
    }

    /**
     * As above, with budgets: a campaign the {@code pacing} service marks exhausted is refused
     * ({@code exhausted}), and one not drawn under its pass-through rate too ({@code paced}).
     */
    public CapDecider(Connection connection, TableLayout layout, CampaignRegistry registry, DeviceHasher hasher,
                      UnidentifiedDevices unidentified, ServeConfig config, Clock clock, Metrics metrics, PacingService pacing,
                      Supplier<RandomGenerator> rng) {
        this.pacing = pacing;
        this.rng = rng;
        this.reader = new ProfileReader(connection, layout, config.timelineReads());
        this.registry = registry;
        this.hasher = hasher;
        this.unidentified = unidentified;
        this.denyUnidentified = config.denyUnidentified();
        this.clock = clock;
        this.staleReads = metrics.counter("adreport_serve_stale_reads_total", "Profile reads answered by a secondary replica");
    }

    /**
     * One campaign's verdict.
     *
     * @param campaign the registered campaign, or empty
     * @param reason   null when allowed; else {@code capped}, {@code paused}, {@code not-serving}, {@code exhausted},
     *                 {@code paced} or {@code unidentified}
     * @param reached  the first reached cap when {@code capped}
     */
    record Verdict(Optional<Campaign> campaign, String reason, CapCheck.Reached reached) {
        boolean allowed() {
            return reason == null;
        }
    }

    /** Verdicts by campaign key (in the order asked) and what was read of the device. */
    record Decision(String device, boolean stale, Map<String, Double> segments, Map<String, Verdict> verdicts) {
    }

    /** Only {@code adserver} (and analyst) keys may call the serving endpoints. */
    static void requireServingRole(Context ctx) {
        var role = BearerAuth.role(ctx);
        if (!role.isAdserver() && !role.isAnalyst()) {
            throw new AccessDenied("only adserver (or analyst) keys may call the serving endpoints");
        }
    }

    Decision decide(String rawDevice, Collection<String> campaignKeys) throws IOException {
        long now = clock.millis();
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        Map<String, Optional<Campaign>> campaigns = new LinkedHashMap<>();
        Map<String, String> budgetReasons = new java.util.HashMap<>();
        List<byte[]> prefixes = new ArrayList<>();
        RandomGenerator random = pacing == null ? null : rng.get();
        for (String key : campaignKeys) {
            Optional<Campaign> c = registry.find(key);
            campaigns.put(key, c);
            if (c.isPresent() && c.get().servesOn(today) && pacing != null) {
                String r = pacing.admit(key, random);
                if (r != null) {
                    budgetReasons.put(key, r); // decided without the profile: not read for it
                    continue;
                }
            }
            if (c.isPresent() && c.get().servesOn(today) && !c.get().caps().isEmpty()) {
                prefixes.add(ViewCells.prefix(c.get().advertiser(), c.get().campaign()));
            }
        }
        boolean unknownDevice = unidentified.isUnidentifiedRaw(rawDevice);
        ProfileReader.Profile p = unknownDevice ? null : reader.read(hasher.hash(rawDevice), prefixes);
        if (p != null && p.stale()) {
            staleReads.inc();
        }
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        campaigns.forEach((key, c) -> {
            String reason = null;
            CapCheck.Reached reached = null;
            if (c.isPresent() && !c.get().servesOn(today)) {
                reason = c.get().status() == Campaign.Status.paused ? "paused" : "not-serving";
            } else if (budgetReasons.containsKey(key)) {
                reason = budgetReasons.get(key);
            } else if (c.isPresent() && !c.get().caps().isEmpty()) {
                if (p == null) {
                    reason = denyUnidentified ? "unidentified" : null;
                } else {
                    long[] views = p.viewsOf(key);
                    reached = CapCheck.firstReached(c.get(), views, views.length, now);
                    reason = reached == null ? null : "capped";
                }
            }
            verdicts.put(key, new Verdict(c, reason, reached));
        });
        return p == null ? new Decision("unidentified", false, Map.of(), verdicts)
                : new Decision(p.found() ? "known" : "new", p.stale(), p.segments(), verdicts);
    }
}
