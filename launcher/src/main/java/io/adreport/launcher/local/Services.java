package io.adreport.launcher.local;

import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.TableSource;
import io.adreport.launcher.cli.Context;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.metrics.Metrics;
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
        String secret = ctx.core().deviceSecret();
        if (secret == null && !ctx.cube().event().hashedFields().isEmpty()) {
            throw new IllegalStateException("device.hash.secret: is required to hash " + ctx.cube().event().hashedFields()
                    + " (set ADREPORT_DEVICE_HASH_SECRET or --set device.hash.secret=...; at least 16 characters)");
        }
        DeviceHasher hasher = secret == null ? null : new DeviceHasher(secret.getBytes(StandardCharsets.UTF_8));
        EventParser parser = new EventParser(ctx.cube(), clock, ctx.core().acceptWindow(), hasher);
        return Aggregator.start(connection, ctx.layout(), parser, config, clock,
                TableSource.of(connection, config.hbaseTimeout()), metrics);
    }

    public static ReportApi.Deps reportDeps(Context ctx, Connection connection, Metrics metrics, Clock clock) {
        ReportConfig config = ReportConfig.from(ctx.settings().resolve(ReportConfig.DEF));
        return ReportApi.Deps.of(connection, ctx.cube(), ctx.layout().namespace(), config, metrics, clock);
    }

    public static Javalin reportApi(ReportApi.Deps deps) {
        return ReportApi.create(deps).start(deps.config().port());
    }
}
