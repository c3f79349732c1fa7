package io.adreport.aggregator.ingest;

import io.adreport.schema.campaign.Campaign;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.metrics.Metrics;
import java.util.HashSet;
import java.util.Set;

/**
 * The campaigns of the registry that are paused, as the pixel sees them: a set of
 * {@code advertiser/campaign} keys replaced whole by {@link #refresh} (EdgeGuard's background
 * thread, every second), so the pixel's check costs no read. A failed read keeps the previous set;
 * a registry table that does not exist (a cube without campaigns) is an empty set. The gauge
 * {@code adreport_beacons_paused_campaigns} shows how many the aggregator knows of (tests wait on
 * it before they fire a paused campaign's beacon).
 */
final class PausedCampaigns {
    /** No registry: nothing is paused. */
    static final PausedCampaigns NONE = new PausedCampaigns(null, null);

    private final CampaignStore store;
    private volatile Set<String> paused = Set.of();

    PausedCampaigns(CampaignStore store, Metrics registry) {
        this.store = store;
        if (registry != null) {
            registry.gauge("adreport_beacons_paused_campaigns",
                    "Paused campaigns of the registry whose beacons the pixel refuses (campaign-paused), as last read", () -> paused.size());
        }
    }

    /** Re-reads the registry; keeps the previous set when it cannot. */
    void refresh() {
        if (store == null) {
            return;
        }
        try {
            Set<String> next = new HashSet<>();
            for (Campaign c : store.list(null)) {
                if (c.status() == Campaign.Status.paused) {
                    next.add(c.key());
                }
            }
            paused = Set.copyOf(next);
        } catch (org.apache.hadoop.hbase.TableNotFoundException e) {
            paused = Set.of();
        } catch (Exception e) {
            // HBase unavailable: the previous set stays until the next round
        }
    }

    /** Whether campaign {@code advertiser/campaign} is paused (null parts: no campaign named, not paused). */
    boolean paused(String advertiser, String campaign) {
        return advertiser != null && campaign != null && paused.contains(advertiser + "/" + campaign);
    }
}
