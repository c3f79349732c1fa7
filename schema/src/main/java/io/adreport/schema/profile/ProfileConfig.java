package io.adreport.schema.profile;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Settings of device profiles shared by the writer (aggregator) and the reader (serving).
 *
 * @param placeholders      raw device ids that name no device, besides empty and all-zero
 * @param hotViewsPerMinute views of one device per minute beyond which it is counted and logged
 *                          as hot (no human sees ads that fast: a bot, an SDK bug, a shared id)
 */
public record ProfileConfig(List<String> placeholders, int hotViewsPerMinute, int regionReplication) {
    public static final ConfigDef DEF = new ConfigDef("Device profiles")
            .define("profiles.placeholder.ids", Type.STRING, "unknown,null,none,0",
                    "Comma-separated device ids that name no device (besides empty and 00000000-0000-0000-0000-000000000000): "
                            + "never written to profiles; checks for them follow serve.unidentified")
            .define("profiles.hot.views.per.minute", Type.INT, "60", ConfigDef.between(1, 1_000_000),
                    "Views of one device in one minute beyond which it is counted in /metrics and logged once (hot-row alarm)")
            .define("profiles.region.replication", Type.INT, "1", ConfigDef.between(1, 10),
                    "Region replicas of the profiles table, made by schema apply (2 or more lets checks with serve.timeline.reads=true "
                            + "answer from a secondary, marked stale, while a primary's region server is down; needs as many region servers)");

    public ProfileConfig {
        placeholders = List.copyOf(placeholders);
    }

    public static ProfileConfig from(ConfigDef.Values v) {
        List<String> ids = Arrays.stream(v.string("profiles.placeholder.ids").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).toList();
        return new ProfileConfig(ids, v.integer("profiles.hot.views.per.minute"), v.integer("profiles.region.replication"));
    }

    public static ProfileConfig of(Map<String, String> overrides) {
        return from(DEF.withOverrides(overrides));
    }

    public static ProfileConfig defaults() {
        return of(Map.of());
    }
}
