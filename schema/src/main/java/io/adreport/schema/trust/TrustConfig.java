package io.adreport.schema.trust;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.spend.SpendRows;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Who may write into the counters, shared by ingest and the ad server.
 *
 * @param requireIngestKey {@code POST /v1/events} needs an {@code ingest} key
 * @param signed           what the pixel does with unsigned beacons: {@code auto}, {@code required},
 *                         {@code optional} or {@code off}
 * @param keys             the beacon signing keys ({@link BeaconKeys})
 * @param beaconTtl        how long a handed-out beacon may be fired
 */
public record TrustConfig(boolean requireIngestKey, String signed, BeaconKeys keys, Duration beaconTtl) {

    /** The pixel's treatment of signatures, once {@code auto} is decided for a cube. */
    public enum Mode {
        /** Only a valid signature is stored. */
        REQUIRED,
        /** A signed beacon must verify; an unsigned one is still stored (migration). */
        OPTIONAL,
        /** Signatures are ignored (cubes without budgets or caps). */
        OFF
    }

    public static final ConfigDef DEF = new ConfigDef("Trust at the edges")
            .define("ingest.require.key", Type.BOOLEAN, "false",
                    "POST /v1/events needs an API key of role ingest (bin/adreport keys add --role ingest), else 401 and "
                            + "nothing stored. Off by default so that existing collectors, bin/adreport replay and the "
                            + "scripts keep working on upgrade; turn it on wherever the ingest port is reachable by anyone "
                            + "but your own collectors (the browser-facing GET /v1/pixel is protected by signatures instead)")
            .define("ingest.beacons.signed", Type.STRING, "auto", ConfigDef.oneOf("auto", "required", "optional", "off"),
                    "What GET /v1/pixel does with a beacon's signature. required: only a beacon signed by /v1/serve/ad "
                            + "with a key of beacon.keys, not expired, untouched, is stored; optional: a signed beacon must "
                            + "verify, an unsigned one is still stored (for migrating a live site); off: signatures are "
                            + "ignored. auto (default): required for a cube whose campaigns can have budgets or frequency "
                            + "caps (device profiles or spend rows, as the ads cube), off for other cubes (wikiticker). A "
                            + "refused beacon is still answered 200 with the 1x1 GIF, its status and reason in the headers "
                            + "X-Adreport-Beacon and X-Adreport-Beacon-Reason, and counted in adreport_beacons_total")
            .define("beacon.keys", Type.STRING, "", BeaconKeys.RULE, BeaconKeys::valid,
                    "Beacon signing keys, the same on every ad server and aggregator. The first signs, all verify: "
                            + "rotate by adding a new key second, moving it first, and removing the old one after "
                            + "beacon.ttl.ms. bin/adreport local generates one into the data directory (beacon.keys)")
            .define("beacon.ttl.ms", Type.DURATION_MS, "3600000", ConfigDef.between(60_000, 604_800_000L),
                    "How long after /v1/serve/ad its beacon URLs may be fired (the signed expiry); a click's ts must lie "
                            + "before it. An expiry further ahead than this (plus a minute of clock skew) is refused as future");

    public static TrustConfig from(ConfigDef.Values v) {
        return new TrustConfig(v.bool("ingest.require.key"), v.string("ingest.beacons.signed"), BeaconKeys.parse(v.string("beacon.keys")),
                v.millis("beacon.ttl.ms"));
    }

    /** Defaults overridden by {@code overrides} only (no file, no environment): for tests and tools. */
    public static TrustConfig of(Map<String, String> overrides) {
        return from(DEF.withOverrides(overrides));
    }

    public static TrustConfig defaults() {
        return of(Map.of());
    }

    /** The pixel's mode for {@code cube}: {@code auto} is required where budgets or caps exist. */
    public Mode mode(Cube cube) {
        if (signed.equals("auto")) {
            return ProfileModel.supported(cube) || SpendRows.supported(cube) ? Mode.REQUIRED : Mode.OFF;
        }
        return Mode.valueOf(signed.toUpperCase(Locale.ROOT));
    }
}
