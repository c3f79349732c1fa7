package io.adreport.launcher.cli;

import io.adreport.aggregator.Aggregator;
import io.adreport.aggregator.AggregatorConfig;
import io.adreport.aggregator.dayclose.InstanceCheck;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.launcher.local.Services;
import io.adreport.schema.metrics.JvmMetrics;
import io.adreport.schema.metrics.Metrics;
import io.javalin.Javalin;
import java.io.PrintStream;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/adreport aggregator} and {@code bin/adreport report-api}: one service against the
 * configured HBase (a cluster via HBASE_CONF_DIR, or a running local stack with the same
 * --data-dir), until SIGTERM; for systemd units on a cluster. An aggregator started next to live
 * ones first checks that joining them keeps ingest exact ({@link InstanceCheck}: every instance
 * with {@code aggregator.instances >= 2}, ids distinct) and refuses to start otherwise.
 */
final class ServiceCommand {
    private ServiceCommand() {
    }

    static int run(String which, Context ctx, PrintStream out) throws Exception {
        Clock clock = Clock.systemUTC();
        Metrics metrics = new Metrics();
        JvmMetrics.register(metrics);
        Connection connection = ctx.connect();
        CountDownLatch stopped = new CountDownLatch(1);
        AutoCloseable service;
        if (which.equals("aggregator")) {
            AggregatorConfig config = AggregatorConfig.from(ctx.settings().resolve(AggregatorConfig.DEF));
            try {
                InstanceCheck.checkJoin(config.aggregatorId(), config.instances(),
                        new HeartbeatStore(connection, ctx.layout(), clock).aggregators(), clock.instant(),
                        config.heartbeatInterval().multipliedBy(3));
            } catch (IllegalStateException e) {
                connection.close();
                throw e;
            }
            Aggregator aggregator = Services.aggregator(ctx, connection, metrics, clock);
            out.println("adreport aggregator: ingest on port " + aggregator.port());
            service = aggregator;
        } else {
            Javalin api = Services.reportApi(ctx, Services.reportDeps(ctx, connection, metrics, clock));
            out.println("adreport report API: port " + api.port());
            service = api::stop;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                service.close();
                connection.close();
            } catch (Exception e) {
                System.err.println("adreport: shutdown: " + e);
            }
            stopped.countDown();
        }, "adreport-shutdown"));
        stopped.await();
        return 0;
    }
}
