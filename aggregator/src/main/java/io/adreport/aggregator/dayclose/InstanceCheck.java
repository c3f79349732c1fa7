package io.adreport.aggregator.dayclose;

import io.adreport.schema.meta.AggregatorState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Whether one more aggregator may join the instances already live on the same tables
 * ({@code bin/adreport aggregator} next to a running stack or other instances): exactness across
 * instances needs every one of them to write raw rows put-if-absent, which each does only when
 * its {@code aggregator.instances} is above 1. So the newcomer refuses to start when
 * <ul>
 *   <li>another instance is live and the newcomer's own setting is 1 (it would dedup only
 *       against itself);</li>
 *   <li>a live instance declared {@code aggregator.instances=1} (it dedups only against itself:
 *       restart it with a higher setting first), or declared nothing (an older version);</li>
 *   <li>a live instance already has the newcomer's {@code aggregator.id} (their heartbeats would
 *       be one row, and a day close could take one's acknowledgement for the other's).</li>
 * </ul>
 * Live means: before the expiry its last heartbeat declared, or, without one, a heartbeat within
 * {@code liveness}. Instances that stopped cleanly retired themselves and do not count.
 */
public final class InstanceCheck {
    private InstanceCheck() {
    }

    /** Throws {@link IllegalStateException} naming the setting, the rule and the live instance when joining is unsafe. */
    public static void checkJoin(String id, int instances, List<AggregatorState> known, Instant now, Duration liveness) {
        for (AggregatorState other : known) {
            if (!other.live(now, liveness)) {
                continue;
            }
            if (other.id().equals(id)) {
                throw new IllegalStateException("aggregator.id: '" + id + "' is already live on these tables (last heartbeat "
                        + other.heartbeat() + (other.expiresAt() == null ? "" : ", expires " + other.expiresAt())
                        + "); give each instance its own id, or wait for that heartbeat to expire");
            }
            if (instances < 2) {
                throw new IllegalStateException("aggregator.instances: is " + instances + ", but aggregator '" + other.id()
                        + "' is live on these tables; with several instances every one needs aggregator.instances >= 2 "
                        + "(put-if-absent raw writes), or an event sent to two of them is counted twice");
            }
            if (other.instances() < 2) {
                throw new IllegalStateException("aggregator.instances: live aggregator '" + other.id() + "' runs with "
                        + (other.instances() == 0 ? "no declared setting" : "aggregator.instances=" + other.instances())
                        + " and dedups only against itself; restart it with aggregator.instances >= 2 before adding instances");
            }
        }
    }
}
