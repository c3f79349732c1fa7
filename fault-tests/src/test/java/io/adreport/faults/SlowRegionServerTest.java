package io.adreport.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.client.RetryPolicy;
import io.adreport.schema.cube.Rollup;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario 4: the region servers are slow (every counter batch waits 2 s in a coprocessor) and
 * then fail every counter batch for 10 s, under load, with a small buffer (buffer.max.cells =
 * 10,000). Back-pressure must hold the buffer within its bound (admission reserves each request's fan-out
 * bound first, so never more than buffer.max.cells cells wait), overload answers are 429 with
 * Retry-After, and nothing is double-counted: live counters never exceed the recount, and after
 * the nightly job they equal it.
 */
@Tag("faults")
@ExtendWith(HBaseExtension.class)
class SlowRegionServerTest {
    private static final int MAX_CELLS = 10_000;

    @Test
    void slow_and_failing_counter_writes_push_back_with_429_and_count_nothing_twice(MiniHBase hbase) throws Exception {
        Ledger ledger = new Ledger();
        try (FaultStack stack = FaultStack.start(hbase, "slowrs", Map.of("buffer.max.cells", Integer.toString(MAX_CELLS),
                "ingest.block.ms", "500", "hbase.timeout.ms", "5000"), Map.of())) {
            try (Admin admin = hbase.connection().getAdmin()) {
                for (Rollup r : stack.cube.rollups()) {
                    TableName t = stack.layout.counterTable(r);
                    admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(t))
                            .setCoprocessor(SlowServerObserver.class.getName()).build());
                    SlowServerObserver.TABLES.add(t);
                }
            }
            AtomicBoolean sampling = new AtomicBoolean(true);
            AtomicLong maxCells = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (sampling.get()) {
                    maxCells.accumulateAndGet((long) gauge(stack.aggregator.metrics().scrape(), "adreport_buffer_cells"), Math::max);
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "faults-buffer-sampler");
            sampler.start();

            Load load = new Load(stack, ledger, 2, 20, 1500, RetryPolicy.DEFAULT).start();
            TimeUnit.SECONDS.sleep(5);
            long faultAt = System.nanoTime();
            SlowServerObserver.delayMillis = 2000;
            // While slow: a direct probe sees the 429 and its Retry-After.
            String retryAfter = null;
            int probes429 = 0;
            for (int i = 0; i < 20 && System.nanoTime() - faultAt < TimeUnit.SECONDS.toNanos(25); i++) {
                HttpResponse<String> r = probe(stack, i);
                if (r.statusCode() == 429) {
                    probes429++;
                    retryAfter = r.headers().firstValue("Retry-After").orElse(null);
                    assertTrue(retryAfter != null, "a 429 carries Retry-After: " + r.headers().map());
                } else if (r.statusCode() == 200) {
                    ledger.acknowledge(probeEvent(stack, i));
                } else {
                    ledger.unknown(probeEvent(stack, i));
                }
                TimeUnit.SECONDS.sleep(1);
            }
            SlowServerObserver.delayMillis = 0;
            SlowServerObserver.failing = true;
            TimeUnit.SECONDS.sleep(10);
            SlowServerObserver.failing = false;
            long healed = System.nanoTime();
            TimeUnit.SECONDS.sleep(15);
            load.close();
            sampling.set(false);
            sampler.join();

            stack.aggregator.flushNow();
            long over = Verdict.distance(stack.totals("advertiser", "advertiser"), ledger.byAdvertiser(), true);
            System.err.printf("FAULTS slow-rs: max buffered cells %d (bound %d), probes answered 429: %d (Retry-After %s), "
                    + "retried statuses %s, live over-count %d%n", maxCells.get(), MAX_CELLS, probes429, retryAfter,
                    load.retriedStatuses(), over);
            assertTrue(load.retriedStatuses().getOrDefault(429, 0L) + probes429 > 0, "the slow server caused 429s");
            // Admission reserves every request's fan-out bound before anything is stored
            // (CoalescingBuffer.reserve), and 20 events of at most 72 cells each fit the bound many
            // times over, so no request is admitted past it: the waiting cells never exceed it.
            assertTrue(maxCells.get() > 0, "the sampler saw the buffer in use");
            assertTrue(maxCells.get() <= MAX_CELLS, "buffer held within buffer.max.cells: " + maxCells.get() + " > " + MAX_CELLS);
            assertTrue(over == 0, "live counters never count an event twice: over by " + over);
            long last = load.lastPushbackNanos();
            Verdict.check("4 slow, then failing counter writes", "2 senders, 1,500 ev/s, 20/request, buffer.max.cells 10,000",
                    "coprocessor: +2 s per counter batch for ~25 s, then every counter batch fails for 10 s", stack, ledger, load,
                    last > healed ? (last - healed) / 1e9 : 0);
        } finally {
            SlowServerObserver.delayMillis = 0;
            SlowServerObserver.failing = false;
        }
    }

    private static Ledger.Beacon probeEvent(FaultStack stack, int n) {
        return new Ledger.Beacon("impression", "probe-" + n, stack.day.atStartOfDay().toInstant(java.time.ZoneOffset.UTC)
                .plusSeconds(7200), "adv-probe", 1, null);
    }

    private static HttpResponse<String> probe(FaultStack stack, int n) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(stack.ingestUrl() + "/v1/events"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(probeEvent(stack, n).json() + "\n")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static double gauge(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1));
            }
        }
        return 0;
    }
}
