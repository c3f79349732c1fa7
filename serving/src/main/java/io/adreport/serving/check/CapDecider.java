package io.adreport.serving.check;

import io.adreport.schema.time.UtcDay;
import io.adreport.http.BearerAuth;
import io.adreport.http.auth.AccessDenied;
import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.event.DeviceHashes;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.adreport.serving.pacing.PacingService;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.apache.hadoop.hbase.client.Connection;

/**
 * The one serving decision behind {@code /v1/serve/check} and {@code /v1/serve/ad}: may each of
 * these campaigns be shown to this device now? Campaigns come from the in-memory registry copy,
 * the device's history from one profile Get ({@link ProfileReader}; two while the device secret
 * rotates, {@link DeviceHashes#all}) restricted to the capped
 * campaigns asked about; the cap rule is {@link CapCheck}'s. A campaign that is paused or outside
 * its dates is refused; an unidentified device (empty, all-zero, placeholder) is refused on capped
 * campaigns when {@code serve.unidentified=deny} and never read; an unregistered campaign has no
 * caps and is allowed (the ad endpoint does not serve unregistered campaigns at all). With a
 * {@link PacingService}, a campaign whose budget is exhausted is refused, and one with a
 * pass-through rate below 1 takes part in that share of requests only (one random draw each);
 * both are decided from memory before the profile is read.
 *
 * <p><b>Deadline.</b> The profile read has a time budget ({@code serve.deadline.ms}), as an ad
 * server's bid has: a read that misses it, or fails, leaves the decision to an empty profile —
 * the device's caps are decided as for an unidentified device, its segments are empty — and the
 * answer says {@code degraded}. A slow or stopped region server then costs a bid its frequency
 * information, never the bid itself. With a zero budget a failed read is an error (503).
 */
public final class CapDecider {
    private final ProfileReader reader;
    private final CampaignRegistry registry;
    private final DeviceHashes hashes;
    private final UnidentifiedDevices unidentified;
    private final boolean denyUnidentified;
    private final Clock clock;
    private final Metrics.Counter staleReads;
    private final Metrics.Counter degradedReads;
    private final boolean degradeOnFailure;
    private final java.util.concurrent.atomic.AtomicLong lastDegradedLog = new java.util.concurrent.atomic.AtomicLong();
    private final PacingService pacing;
    private final Supplier<RandomGenerator> rng;

    /**
     * With budgets: a campaign the {@code pacing} service marks exhausted is refused
     * ({@code exhausted}), and one not drawn under its pass-through rate too ({@code paced}).
     */
    public CapDecider(Connection connection, TableLayout layout, CampaignRegistry registry, DeviceHashes hashes,
                      UnidentifiedDevices unidentified, ServeConfig config, Clock clock, Metrics metrics, PacingService pacing,
                      Supplier<RandomGenerator> rng) {
        this.pacing = pacing;
        this.rng = rng;
        this.reader = new ProfileReader(connection, layout, config.timelineReads(), config.deadline());
        this.degradeOnFailure = !config.deadline().isZero();
        this.registry = registry;
        this.hashes = hashes;
        this.unidentified = unidentified;
        this.denyUnidentified = config.denyUnidentified();
        this.clock = clock;
        this.staleReads = metrics.counter("adreport_serve_stale_reads_total", "Profile reads answered by a secondary replica");
        this.degradedReads = metrics.counter("adreport_serve_degraded_total",
                "Checks and ad requests decided from an empty profile: the profile read missed serve.deadline.ms or failed");
    }

    /**
     * One campaign's verdict.
     *
     * @param campaign the registered campaign, or empty
     * @param reason   null when allowed; else {@code capped}, {@code paused}, {@code not-serving}, {@code exhausted},
     *                 {@code paced}, {@code unidentified} or {@code degraded} (the profile read missed its deadline)
     * @param reached  the first reached cap when {@code capped}
     */
    record Verdict(Optional<Campaign> campaign, String reason, CapCheck.Reached reached) {
        boolean allowed() {
            return reason == null;
        }
    }

    /**
     * Verdicts by campaign key (in the order asked) and what was read of the device;
     * {@code degraded}: the profile could not be read in time, caps were decided without it.
     */
    record Decision(String device, boolean stale, boolean degraded, Map<String, Double> segments, Map<String, Verdict> verdicts) {
    }

    /** Only {@code adserver} (and analyst) keys may call the serving endpoints. */
    static void requireServingRole(Context ctx) {
        var role = BearerAuth.role(ctx);
        if (!role.isAdserver() && !role.isAnalyst()) {
            throw new AccessDenied("only adserver (or analyst) keys may call the serving endpoints");
        }
    }

    /** The device's keyed hash, the opaque token beacons carry; null for an id that names no device. */
    String deviceToken(String rawDevice) {
        return unidentified.isUnidentifiedRaw(rawDevice) ? null : hashes.current(rawDevice);
    }

    Decision decide(String rawDevice, Collection<String> campaignKeys) throws IOException {
        long now = clock.millis();
        LocalDate today = UtcDay.dateToday(clock);
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
        ProfileReader.Profile p = null;
        boolean degraded = false;
        if (!unknownDevice) {
            try {
                p = reader.read(hashes.all(rawDevice), prefixes); // two rows only while the secret rotates
            } catch (IOException e) {
                if (!degradeOnFailure) {
                    throw e;
                }
                degraded = true;
                degradedReads.inc();
                long now2 = System.currentTimeMillis();
                long last = lastDegradedLog.get();
                if (now2 - last > 10_000 && lastDegradedLog.compareAndSet(last, now2)) {
                    org.slf4j.LoggerFactory.getLogger(CapDecider.class).warn(
                            "profile read missed its deadline or failed; answering degraded (logged once per 10 s): {}", e.toString());
                }
            }
        }
        if (p != null && p.stale()) {
            staleReads.inc();
        }
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        String noProfile = degraded ? "degraded" : "unidentified";
        ProfileReader.Profile profile = p;
        campaigns.forEach((key, c) -> {
            String reason = null;
            CapCheck.Reached reached = null;
            if (c.isPresent() && !c.get().servesOn(today)) {
                reason = c.get().status() == Campaign.Status.paused ? "paused" : "not-serving";
            } else if (budgetReasons.containsKey(key)) {
                reason = budgetReasons.get(key);
            } else if (c.isPresent() && !c.get().caps().isEmpty()) {
                if (profile == null) {
                    reason = denyUnidentified ? noProfile : null;
                } else {
                    long[] views = profile.viewsOf(key);
                    reached = CapCheck.firstReached(c.get(), views, views.length, now);
                    reason = reached == null ? null : "capped";
                }
            }
            verdicts.put(key, new Verdict(c, reason, reached));
        });
        if (degraded) {
            return new Decision("unknown", false, true, Map.of(), verdicts);
        }
        return p == null ? new Decision("unidentified", false, false, Map.of(), verdicts)
                : new Decision(p.found() ? "known" : "new", p.stale(), false, p.segments(), verdicts);
    }
}
