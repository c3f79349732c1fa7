package io.adreport.privacy;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of the privacy deletion worker.
 *
 * @param interval        pause between ticks when no deletion has work that can be done now
 * @param batch           raw events one deletion rewrites per tick (bounds a tick's work and memory)
 * @param compactRetry    a requested compaction not seen done after this long is requested again
 *                        (its region moved or split, or the request was lost with a restart)
 */
public record PrivacyConfig(Duration interval, int batch, Duration compactRetry) {
    public static final ConfigDef DEF = new ConfigDef("Privacy deletions")
            .define("privacy.worker.interval.ms", Type.INT, "1000", ConfigDef.between(10, 600_000),
                    "Pause of the deletion worker between ticks when it has nothing to do now (waiting for a compaction or a snapshot)")
            .define("privacy.worker.batch", Type.INT, "5000", ConfigDef.between(1, 100_000),
                    "Raw events one deletion rewrites per tick (a device with more takes several ticks, back to back)")
            .define("privacy.compact.retry.ms", Type.INT, "600000", ConfigDef.between(1000, 86_400_000),
                    "A requested major compaction not seen done after this long is requested again");

    public static PrivacyConfig from(ConfigDef.Values v) {
        return new PrivacyConfig(Duration.ofMillis(v.integer("privacy.worker.interval.ms")), v.integer("privacy.worker.batch"),
                Duration.ofMillis(v.integer("privacy.compact.retry.ms")));
    }

    public static PrivacyConfig of(Map<String, String> overrides) {
        return from(DEF.withOverrides(overrides));
    }

    public static PrivacyConfig defaults() {
        return of(Map.of());
    }
}
