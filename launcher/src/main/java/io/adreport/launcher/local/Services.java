package io.adreport.launcher.local;

import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.campaigns.CampaignRoutes;
import io.adreport.http.ApiRoute;
import io.adreport.launcher.cli.Context;
import io.adreport.privacy.PrivacyConfig;
import io.adreport.privacy.PrivacyRoutes;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import java.util.ArrayList;
import java.util.List;
import io.adreport.reconcile.Reconciler;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.trust.BeaconSigner;
import io.adreport.schema.trust.TrustConfig;
import io.adreport.serving.ServeConfig;
import io.adreport.serving.ServingRoutes;
import io.javalin.Javalin;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.hadoop.hbase.client.Connection;

/** Builds the long-running services from settings; shared by the local stack and the cluster service commands. */
public final class Services {
    private Services() {
    }

    public static Aggregator aggregator(Context ctx, Connection connection, Metrics metrics, Clock clock) {
        AggregatorConfig config = AggregatorConfig.from(ctx.settings().resolve(AggregatorConfig.DEF));
        EventParser parser = new EventParser(ctx.cube(), clock, ctx.core().acceptWindow(), hashes(ctx));
        return Aggregator.start(connection, ctx.layout(), parser, config, clock,
                TableSource.of(connection, config.hbaseTimeout(), config.flushTimeout()), metrics, ProfileConfig.from(ctx.settings().resolve(ProfileConfig.DEF)),
                trust(ctx));
    }

    /** Who may write: the ingest key rule, the pixel's signature mode, the beacon signing keys. */
    public static TrustConfig trust(Context ctx) {
        return TrustConfig.from(ctx.settings().resolve(TrustConfig.DEF));
    }

    /**
     * The device hasher of the configured secret (or, for commands run beside a local stack, the
     * secret it generated in its data directory); null when the cube hashes nothing.
     */
    public static DeviceHasher hasher(Context ctx) {
        DeviceHashes hashes = hashes(ctx);
        return hashes == null ? null : hashes.currentHasher();
    }

    /**
     * The device's hashes: the current secret ({@link #hasher}) and, while it rotates,
     * {@code device.hash.secret.previous}; null when the cube hashes nothing.
     */
    public static DeviceHashes hashes(Context ctx) {
        String secret = ctx.core().deviceSecret();
        java.nio.file.Path local = ctx.core().dataDir().resolve("device.secret");
        if (secret == null && java.nio.file.Files.isReadable(local)) {
            try {
                secret = java.nio.file.Files.readString(local).trim();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot read " + local, e);
            }
        }
        if (secret == null && !ctx.cube().event().hashedFields().isEmpty()) {
            throw new IllegalStateException("device.hash.secret: is required to hash " + ctx.cube().event().hashedFields()
                    + " (set ADREPORT_DEVICE_HASH_SECRET or --set device.hash.secret=...; at least 16 characters)");
        }
        if (secret == null) {
            return null;
        }
        String previous = ctx.core().previousSecret();
        return DeviceHashes.of(secret.getBytes(StandardCharsets.UTF_8), previous == null ? null : previous.getBytes(StandardCharsets.UTF_8));
    }

    public static ReportApi.Deps reportDeps(Context ctx, Connection connection, Metrics metrics, Clock clock) {
        ReportConfig config = ReportConfig.from(ctx.settings().resolve(ReportConfig.DEF));
        return ReportApi.Deps.of(connection, ctx.cube(), ctx.layout().namespace(), config, metrics, clock);
    }

    /**
     * {@code reconciler}, also repairing device view histories after each day when the cube has
     * profiles and a device secret is known (placeholder ids are recognised by their hash).
     */
    public static Reconciler withViewRepair(Context ctx, Connection connection, Reconciler reconciler) {
        DeviceHashes hashes;
        try {
            hashes = ProfileModel.supported(ctx.cube()) ? hashes(ctx) : null;
        } catch (IllegalStateException noSecret) {
            hashes = null; // Reconciler.withViewRepair warns
        }
        return Reconciler.withViewRepair(reconciler, connection, ctx.layout(), hashes,
                ProfileConfig.from(ctx.settings().resolve(ProfileConfig.DEF)));
    }

    /**
     * The report API with the campaign registry, the serving endpoints and the privacy deletions (for cubes with device
     * profiles), started; the privacy deletion worker runs while the API does.
     */
    public static Javalin reportApi(Context ctx, ReportApi.Deps deps) {
        DeviceHashes hashes = hashes(ctx);
        ProfileConfig profiles = ProfileConfig.from(ctx.settings().resolve(ProfileConfig.DEF));
        ServingRoutes serving = ServingRoutes.create(deps.connection(), deps.layout(), hashes,
                profiles, ServeConfig.from(ctx.settings().resolve(ServeConfig.DEF)),
                deps.clock(), deps.metrics(), BeaconSigner.of(trust(ctx), deps.clock()));
        PrivacyRoutes privacy = PrivacyRoutes.create(deps.connection(), deps.layout(), hashes,
                new UnidentifiedDevices(hashes, profiles.placeholders()), PrivacyConfig.from(ctx.settings().resolve(PrivacyConfig.DEF)),
                deps.clock(), deps.metrics());
        List<ApiRoute> extra = new ArrayList<>(CampaignRoutes.create(deps.connection(), deps.layout(), deps.days(), deps.clock(),
                serving.rates()));
        extra.addAll(serving.routes());
        extra.addAll(privacy.routes());
        Javalin app = ReportApi.create(deps, extra);
        app.events(e -> e.serverStopped(() -> {
            privacy.close();
            serving.close();
        }));
        return app.start(deps.config().port());
    }
}
