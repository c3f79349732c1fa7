package io.adreport.aggregator.ingest;

import io.adreport.http.auth.ApiKeys;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.meta.ApiKeyStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.meta.KeyRecord;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.trust.BeaconSigner;
import io.adreport.schema.trust.TrustConfig;
import io.adreport.schema.threads.DaemonThreads;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Who may write through the ingest port, and who may read its live counts.
 *
 * <p><b>Keys.</b> {@code POST /v1/events} needs a bearer key of role {@code ingest} when
 * {@code ingest.require.key=true}; {@code POST /internal/live-counters} always needs one of role
 * {@code internal} (the report API presents its own). A key is checked as the report API checks
 * it: the SHA-256 of the whole key ({@link ApiKeys#hash}) looked up in the meta table
 * ({@link ApiKeyStore}), active and of the role. Answers are cached for {@link #CACHE_TTL} (a revoked key works at most that much
 * longer), at most {@link #CACHE_MAX} entries (emptied when full). So that the live-counts route
 * (whose callers wait at most {@code report.live.timeout.ms}) never waits for a meta-table read,
 * a background thread reads the active {@code ingest} and {@code internal} keys every
 * {@link #PRELOAD_EVERY} and refreshes their entries; only a key never seen before costs a read on
 * the request path. A missing, unknown, revoked or other-role key is 401 before the body is read.
 *
 * <p><b>Beacons.</b> {@link #verify} applies {@link BeaconSigner} under the cube's
 * {@link TrustConfig.Mode}, then refuses a beacon naming a campaign the registry has paused since
 * the beacon was served ({@code campaign-paused}: {@link PausedCampaigns}, re-read by the same
 * background thread), and counts every refusal by reason ({@code adreport_beacons_refused_total}).
 * The same thread records the total refused so far in the aggregator's heartbeat row
 * ({@link HeartbeatStore#beaconsRefused(String, long)}, only when it changed), continuing from the
 * total the row held when this instance started; the report API sums the rows for the dashboard.
 */
public final class EdgeGuard {
    static final Duration CACHE_TTL = Duration.ofSeconds(2);
    static final int CACHE_MAX = 10_000;
    static final Duration PRELOAD_EVERY = Duration.ofSeconds(1);

    private record Cached(Optional<String> role, Instant expires) {
    }

    private final TrustConfig config;
    private final TrustConfig.Mode mode;
    private final BeaconSigner signer;
    private final ApiKeyStore keys;
    private final Clock clock;
    private final Metrics registry;
    private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();
    private final java.util.concurrent.ScheduledExecutorService preloader;
    private final PausedCampaigns paused;
    private final HeartbeatStore heartbeats;
    private final String aggregatorId;
    private final LongAdder refused = new LongAdder();
    /** The heartbeat row's total when this instance started (-1 until read), and the total last written. */
    private long refusedBase = -1;
    private long refusedWritten = -1;

    /**
     * @param cube         the cube the pixel's beacons become events of (its {@link io.adreport.schema.trust.BeaconNames})
     * @param campaigns    the campaign registry (paused campaigns), or null for none
     * @param heartbeats   where the refused total is recorded under {@code aggregatorId}, or null for nowhere
     */
    public EdgeGuard(TrustConfig config, Cube cube, ApiKeyStore keys, CampaignStore campaigns, HeartbeatStore heartbeats,
                     String aggregatorId, Clock clock, Metrics registry) {
        this.config = config;
        this.mode = config.mode(cube);
        this.signer = BeaconSigner.of(config, cube, clock);
        this.keys = keys;
        this.clock = clock;
        this.registry = registry;
        this.paused = campaigns == null || mode == TrustConfig.Mode.OFF ? PausedCampaigns.NONE : new PausedCampaigns(campaigns, registry);
        this.heartbeats = heartbeats;
        this.aggregatorId = aggregatorId;
        for (BeaconSigner.Reason r : BeaconSigner.Reason.values()) {
            refusedCounter(r.label); // every reason shows in /metrics from the start, at 0
        }
        preloader = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("adreport-key-preload"));
        preloader.scheduleWithFixedDelay(this::preload, 0, PRELOAD_EVERY.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Refreshes the active keys' entries and the paused campaigns; records the refused total (a failed call waits for the next round). */
    private void preload() {
        paused.refresh();
        recordRefused();
        try {
            Instant expires = clock.instant().plus(CACHE_TTL);
            for (KeyRecord k : keys.keys()) {
                if (k.active() && (k.role().equals("ingest") || k.role().equals("internal"))) {
                    cache.put(k.hash(), new Cached(Optional.of(k.role()), expires));
                }
            }
        } catch (RuntimeException e) {
            // HBase unavailable: entries age out as without the preloader
        }
    }

    private void recordRefused() {
        if (heartbeats == null) {
            return;
        }
        try {
            if (refusedBase < 0) {
                refusedBase = heartbeats.beaconsRefused(aggregatorId);
                refusedWritten = refusedBase; // nothing to write until a beacon is refused
            }
            long total = refusedBase + refused.sum();
            if (total != refusedWritten) {
                heartbeats.beaconsRefused(aggregatorId, total);
                refusedWritten = total;
            }
        } catch (RuntimeException e) {
            // HBase unavailable: written at a later round
        }
    }

    /** Stops the preloading thread, after a last record of the refused total. */
    void close() {
        preloader.shutdownNow();
        try {
            preloader.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        recordRefused();
    }

    public TrustConfig.Mode mode() {
        return mode;
    }

    /** Answers 401 unless {@code POST /v1/events} may proceed. */
    void requireIngestKey(Context ctx) {
        if (config.requireIngestKey()) {
            requireRole(ctx, "ingest", "POST /v1/events");
        }
    }

    /** Answers 401 unless the caller presents the cluster's internal credential. */
    void requireInternal(Context ctx) {
        requireRole(ctx, "internal", "this internal route");
    }

    private void requireRole(Context ctx, String role, String what) {
        String h = ctx.header("Authorization");
        String key = h != null && h.startsWith("Bearer ") ? h.substring(7).trim() : null;
        if (key == null) {
            registry.counter("adreport_ingest_unauthorized_total", "Ingest-port requests refused 401, by reason", "reason", "no-key").inc();
            throw new IngestError(401, "authorization: " + what + " needs 'Authorization: Bearer KEY' with a key of role " + role);
        }
        if (!role(key).filter(role::equals).isPresent()) {
            registry.counter("adreport_ingest_unauthorized_total", "Ingest-port requests refused 401, by reason", "reason", "bad-key").inc();
            throw new IngestError(401, "authorization: the key is unknown, revoked or not of role " + role);
        }
    }

    private Optional<String> role(String key) {
        if (!ApiKeys.wellFormed(key)) {
            return Optional.empty();
        }
        String hash = ApiKeys.hash(key);
        Instant now = clock.instant();
        Cached c = cache.get(hash);
        if (c != null && now.isBefore(c.expires())) {
            return c.role();
        }
        Optional<String> role;
        try {
            role = keys.key(hash).filter(KeyRecord::active).map(KeyRecord::role);
        } catch (RuntimeException e) {
            throw new IngestError(503, "cannot check the key now (meta table unavailable), retry later");
        }
        if (cache.size() >= CACHE_MAX) {
            cache.clear();
        }
        cache.put(hash, new Cached(role, now.plus(CACHE_TTL)));
        return role;
    }

    /** The pixel's verdict on a fired beacon; a refusal is counted by its reason. */
    BeaconSigner.Verdict verify(Map<String, List<String>> query) {
        BeaconSigner.Verdict v = signer.verify(query, mode);
        if (v.refused() == null && paused.paused(v.fields().get(ProfileModel.ADVERTISER), v.fields().get(ProfileModel.CAMPAIGN))) {
            v = new BeaconSigner.Verdict(BeaconSigner.Reason.CAMPAIGN_PAUSED, v.signed(), v.fields(), v.deviceToken());
        }
        if (v.refused() != null) {
            refused.increment();
            refusedCounter(v.refused().label).inc();
        } else {
            registry.counter("adreport_beacons_verified_total", "Pixel beacons that passed the signature check, by how",
                    "signature", v.signed() ? "verified" : mode == TrustConfig.Mode.OFF ? "not-checked" : "unsigned-allowed").inc();
        }
        return v;
    }

    private Metrics.Counter refusedCounter(String reason) {
        return registry.counter("adreport_beacons_refused_total",
                "Pixel beacons refused before anything was stored (answered with the GIF and X-Adreport-Beacon-Reason), by reason",
                "reason", reason);
    }
}
