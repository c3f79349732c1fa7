package io.adreport.campaigns.registry;

import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.inventory.ZoneInventory;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving side's copy of the registry (campaigns and zone inventories): an immutable snapshot, replaced whole by a
 * background re-read every {@code serve.registry.refresh.ms}, so a check never reads the registry
 * table and a change made through {@code PUT /v1/campaigns/...} on any node takes effect here
 * within one refresh. A failed re-read keeps the previous snapshot (and is counted); the age of
 * the snapshot is a gauge in {@code /metrics}.
 */
public final class CampaignRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CampaignRegistry.class);

    private final CampaignStore store;
    private final Clock clock;
    private final ScheduledExecutorService timer;
    private final Metrics.Counter failures;
    private final ZoneStore zones;
    private volatile Map<String, Campaign> snapshot = Map.of();
    private volatile Map<String, ZoneInventory> zoneSnapshot = Map.of();
    private volatile long loadedAt;

    public CampaignRegistry(CampaignStore store, ZoneStore zones, Clock clock, Metrics registry) {
        this.store = store;
        this.zones = zones;
        this.clock = clock;
        this.failures = registry.counter("adreport_serve_registry_refresh_failures_total", "Failed re-reads of the campaign registry");
        registry.gauge("adreport_serve_registry_age_seconds", "Age of the serving copy of the campaign registry",
                () -> loadedAt == 0 ? Double.NaN : (clock.millis() - loadedAt) / 1000.0);
        this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("adreport-campaign-registry"));
    }

    /** Loads once (so the first check sees the registry) and then every {@code every}. */
    public CampaignRegistry start(Duration every) {
        refresh();
        timer.scheduleWithFixedDelay(this::refresh, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** Re-reads the registry now; keeps the old snapshot on failure. */
    public void refresh() {
        try {
            Map<String, Campaign> next = new HashMap<>();
            for (Campaign c : store.list(null)) {
                next.put(c.key(), c);
            }
            Map<String, ZoneInventory> nextZones = new HashMap<>();
            for (ZoneInventory z : zones.list()) {
                nextZones.put(z.key(), z);
            }
            snapshot = Map.copyOf(next);
            zoneSnapshot = Map.copyOf(nextZones);
            loadedAt = clock.millis();
        } catch (Exception e) {
            failures.inc();
            LOG.warn("re-reading the campaign registry failed, keeping the copy of {} campaigns: {}", snapshot.size(), e.toString());
        }
    }

    /** The campaign {@code advertiser/campaign}, if registered. */
    public Optional<Campaign> find(String key) {
        return Optional.ofNullable(snapshot.get(key));
    }

    /** Every registered campaign (the current snapshot). */
    public java.util.Collection<Campaign> campaigns() {
        return snapshot.values();
    }

    /** The inventory of zone {@code site/zone}, if set. */
    public Optional<ZoneInventory> zone(String site, String zone) {
        return Optional.ofNullable(zoneSnapshot.get(site + "/" + zone));
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
