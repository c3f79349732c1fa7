package io.adreport.serving;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of the serving endpoints.
 *
 * @param unidentified    what a check answers for an unidentified device (empty, all-zero or a
 *                        placeholder id) on a campaign with caps: deny (default) or allow
 * @param timelineReads   read profiles with TIMELINE consistency (any region replica may answer;
 *                        the answer says {@code "stale": true} when a secondary did)
 * @param registryRefresh how often the campaign registry is re-read: a change takes effect
 *                        everywhere within this time
 * @param maxCampaigns    most campaigns one check may ask about
 * @param beaconUrl       base URL of the ingest that the beacon URLs of chosen ads point at
 * @param pacingInterval  how often the pacing service re-reads every budgeted campaign's spend
 * @param pacingLookahead how far ahead the pacing service projects a campaign's recent spend rate
 *                        when it decides that a budget is exhausted
 * @param deadline        the time budget of a check's profile read: past it (or when the read
 *                        fails) the answer is decided from an empty profile, {@code "degraded": true};
 *                        zero waits for the HBase client's own timeouts
 */
public record ServeConfig(boolean denyUnidentified, boolean timelineReads, Duration registryRefresh, int maxCampaigns,
                          String beaconUrl, Duration pacingInterval, Duration pacingLookahead, Duration deadline) {
    public static final ConfigDef DEF = new ConfigDef("Serving")
            .define("serve.unidentified", Type.STRING, "deny", ConfigDef.oneOf("deny", "allow"),
                    "Check answer for an unidentified device (empty, all-zero, placeholder) on a capped campaign")
            .define("serve.timeline.reads", Type.BOOLEAN, "false",
                    "Read device profiles with TIMELINE consistency (needs region replicas; answers mark stale reads)")
            .define("serve.registry.refresh.ms", Type.DURATION_MS, "2000", ConfigDef.between(100, 60_000),
                    "How often the campaign registry is re-read (a change takes effect within this time)")
            .define("serve.max.campaigns", Type.INT, "500", ConfigDef.between(1, 10_000),
                    "Most campaigns one check may ask about")
            .define("serve.beacon.url", Type.STRING, "http://localhost:8081",
                    "Base URL of the ingest (GET /v1/pixel) in the beacon URLs that POST /v1/serve/ad returns")
            .define("serve.pacing.interval.ms", Type.DURATION_MS, "250", ConfigDef.between(50, 60_000),
                    "How often the pacing service reads each budgeted campaign's spend (one short scan each) and republishes "
                            + "exhausted and the pass-through rate; with spend.flush.ms it bounds the overspend of a budget")
            .define("serve.pacing.lookahead.ms", Type.DURATION_MS, "500", ConfigDef.between(0, 60_000),
                    "A campaign counts as exhausted once spent + unflushed + its recent spend rate over this time reaches the "
                            + "budget: the spend still on its way when a decision is published (spend.flush.ms + "
                            + "serve.pacing.interval.ms by default). 0: only once spent + unflushed reaches it")
            .define("serve.deadline.ms", Type.DURATION_MS, "20", ConfigDef.between(0, 10_000),
                    "Time budget of the profile read of /v1/serve/check and /v1/serve/ad: past it, or when the read fails, the "
                            + "answer is decided from an empty profile (caps as for an unidentified device), marked \"degraded\": true "
                            + "and counted in adreport_serve_degraded_total; 0 waits for the HBase client's timeouts");

    public static ServeConfig from(ConfigDef.Values v) {
        return new ServeConfig(v.string("serve.unidentified").equals("deny"), v.bool("serve.timeline.reads"),
                v.millis("serve.registry.refresh.ms"), v.integer("serve.max.campaigns"), v.string("serve.beacon.url"),
                v.millis("serve.pacing.interval.ms"), v.millis("serve.pacing.lookahead.ms"), v.millis("serve.deadline.ms"));
    }

    public static ServeConfig of(Map<String, String> overrides) {
        return from(DEF.withOverrides(overrides));
    }
}
