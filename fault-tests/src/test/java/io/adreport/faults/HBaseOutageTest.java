package io.adreport.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.client.RetryPolicy;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario 2: HBase (master and every region server) is stopped under load for 60 s
 * ({@code -Dfaults.outage.seconds}) and started again on the same root directory; ZooKeeper and
 * adreport stay up. Meanwhile the ingest answers 503 with Retry-After and stores no half event,
 * and the report API answers 503 with a body that says HBase is unavailable; both recover
 * without a restart; afterwards nothing acknowledged is lost and the nightly job makes the day
 * exact.
 */
@Tag("faults")
@ExtendWith(HBaseExtension.class)
class HBaseOutageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void an_hbase_outage_answers_503_and_loses_nothing_acknowledged(MiniHBase hbase) throws Exception {
        int outage = Integer.getInteger("faults.outage.seconds", 60);
        Ledger ledger = new Ledger();
        try (FaultStack stack = FaultStack.start(hbase, "outage", Map.of("hbase.timeout.ms", "3000"),
                Map.of("report.query.timeout.ms", "10000"))) {
            Load load = new Load(stack, ledger, 2, 200, 1000, RetryPolicy.DEFAULT).start();
            TimeUnit.SECONDS.sleep(8);
            int before = 0;
            for (int i = 0; i < 12 && (before = stack.get(reportPath(stack)).statusCode()) != 200; i++) {
                TimeUnit.SECONDS.sleep(5); // a loaded machine can make one query miss its timeout: try again, bounded
            }
            assertEquals(200, before, "the report API answers before the outage");

            long faultAt = System.nanoTime();
            hbase.util().shutdownMiniHBaseCluster();
            System.err.printf("FAULTS outage: HBase stopped after %d acknowledged lines%n", ledger.acknowledgedLines());

            // While HBase is down: a probe of each API every few seconds; every answer is recorded.
            Map<Integer, Integer> reportStatuses = new TreeMap<>();
            Map<Integer, Integer> ingestStatuses = new TreeMap<>();
            String reportBody = null;
            String ingestBody = null;
            String retryAfter = null;
            try {
                long until = faultAt + TimeUnit.SECONDS.toNanos(outage);
                int probe = 0;
                while (System.nanoTime() < until) {
                    HttpResponse<String> r = stack.get(reportPath(stack));
                    reportStatuses.merge(r.statusCode(), 1, Integer::sum);
                    if (r.statusCode() != 200 || reportBody == null) {
                        reportBody = r.body();
                    }
                    Ledger.Beacon probeEvent = probe(stack, probe++);
                    HttpResponse<String> i = post(stack, probeEvent);
                    ingestStatuses.merge(i.statusCode(), 1, Integer::sum);
                    if (i.statusCode() == 200) {
                        ledger.acknowledge(probeEvent);
                    } else {
                        ledger.unknown(probeEvent);
                        ingestBody = i.body();
                        retryAfter = i.headers().firstValue("Retry-After").orElse(retryAfter);
                    }
                    TimeUnit.SECONDS.sleep(2);
                }
                System.err.printf("FAULTS outage: report API answered %s (last body %s), ingest answered %s (last body %s, "
                        + "Retry-After %s)%n", reportStatuses, reportBody, ingestStatuses, ingestBody, retryAfter);
            } finally {
                hbase.util().startMiniHBaseCluster(StartMiniClusterOption.builder().numMasters(1)
                        .numRegionServers(Integer.getInteger("adreport.minihbase.regionservers", 1)).build());
            }
            assertEquals(Set.of(503), reportStatuses.keySet(), "report API during the outage: " + reportStatuses + " " + reportBody);
            assertTrue(JSON.readTree(reportBody).get("error").asText().contains("unavailable"), reportBody);
            assertEquals(Set.of(503), ingestStatuses.keySet(), "ingest during the outage: " + ingestStatuses + " " + ingestBody);
            assertTrue(retryAfter != null, "a 503 of the ingest carries Retry-After");
            long restarted = System.nanoTime();
            System.err.printf("FAULTS outage: HBase started again %.1f s after it was stopped%n", (restarted - faultAt) / 1e9);
            // Recovery without restarting adreport: the report API answers again by itself.
            long deadline = restarted + TimeUnit.MINUTES.toNanos(3);
            int status = 0;
            while (System.nanoTime() < deadline && (status = stack.get(reportPath(stack)).statusCode()) != 200) {
                TimeUnit.SECONDS.sleep(1);
            }
            assertEquals(200, status, "the report API recovered");
            double reportRecovery = (System.nanoTime() - restarted) / 1e9;
            TimeUnit.SECONDS.sleep(20);
            load.close();
            long last = load.lastPushbackNanos();
            double ingestRecovery = last > restarted ? (last - restarted) / 1e9 : 0;
            System.err.printf("FAULTS outage: after HBase was back, report API answered in %.1f s, ingest in %.1f s%n",
                    reportRecovery, ingestRecovery);
            Verdict.check("2 HBase down " + outage + " s", "2 senders, 1,000 ev/s, 200/request",
                    "master and both region servers stopped, started again", stack, ledger, load, ingestRecovery);
        }
    }

    private static String reportPath(FaultStack stack) {
        return "/v1/reports/network?from=" + stack.day + "&to=" + stack.day.plusDays(1) + "&granularity=day";
    }

    private static Ledger.Beacon probe(FaultStack stack, int n) {
        return new Ledger.Beacon("impression", "probe-" + n, stack.day.atStartOfDay().toInstant(java.time.ZoneOffset.UTC)
                .plusSeconds(3600), "adv-probe", 1, null);
    }

    /** One event posted directly (no retry), to see what the ingest answers right now. */
    private static HttpResponse<String> post(FaultStack stack, Ledger.Beacon b) throws Exception {
        String body = b.json() + "\n";
        return HTTP.send(HttpRequest.newBuilder(URI.create(stack.ingestUrl() + "/v1/events")).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
