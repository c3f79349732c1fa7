package io.adreport.launcher.cli;

import io.adreport.aggregator.Aggregator;
import io.adreport.launcher.local.Services;
import io.adreport.schema.metrics.Metrics;
import io.javalin.Javalin;
import java.io.PrintStream;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/adreport aggregator} and {@code bin/adreport report-api}: one service against the
 * configured HBase (a cluster via HBASE_CONF_DIR), until SIGTERM; for systemd units on a cluster.
 */
final class ServiceCommand {
    private ServiceCommand() {
    }

    static int run(String which, Context ctx, PrintStream out) throws Exception {
        Clock clock = Clock.systemUTC();
        Metrics metrics = new Metrics();
        Connection connection = ctx.connect();
        CountDownLatch stopped = new CountDownLatch(1);
        AutoCloseable service;
        if (which.equals("aggregator")) {
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
