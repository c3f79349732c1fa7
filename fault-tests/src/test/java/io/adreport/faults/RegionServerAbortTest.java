package io.adreport.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.client.RetryPolicy;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario 1: a region server that holds raw and counter regions is aborted under load (as
 * when its process dies), its regions move to the other server, and a fresh server joins. The
 * ingest answers 503/429 meanwhile and recovers by itself; afterwards every acknowledged event is
 * stored and, after the nightly job, counted exactly once.
 */
@Tag("faults")
@ExtendWith(HBaseExtension.class)
class RegionServerAbortTest {
    @Test
    void aborting_a_region_server_mid_ingest_loses_no_acknowledged_event(MiniHBase hbase) throws Exception {
        MiniHBaseCluster cluster = hbase.util().getMiniHBaseCluster();
        assertTrue(cluster.getLiveRegionServerThreads().size() >= 2, "the fault suite runs with 2 region servers");
        Ledger ledger = new Ledger();
        long faultAt;
        double recovery;
        try (FaultStack stack = FaultStack.start(hbase, "rsabort", Map.of(), Map.of())) {
            Load load = new Load(stack, ledger, 2, 200, 1500, RetryPolicy.DEFAULT).start();
            TimeUnit.SECONDS.sleep(10);

            int victim = serverWithMostRegions(cluster, stack);
            String name = cluster.getRegionServer(victim).getServerName().toString();
            faultAt = System.nanoTime();
            cluster.abortRegionServer(victim);
            cluster.waitOnRegionServer(victim);
            System.err.printf("FAULTS rs-abort: aborted %s after %d acknowledged lines; its regions move%n", name,
                    ledger.acknowledgedLines());
            cluster.startRegionServer();
            TimeUnit.SECONDS.sleep(30);
            load.close();
            long last = load.lastPushbackNanos();
            recovery = last > faultAt ? (last - faultAt) / 1e9 : 0;
            Verdict.check("1 region server abort", "2 senders, 1,500 ev/s, 200/request",
                    "abort 1 of 2 region servers (most regions), start a new one", stack, ledger, load, recovery);
        }
    }

    /** The live region server holding the most regions of the test's namespace. */
    private static int serverWithMostRegions(MiniHBaseCluster cluster, FaultStack stack) {
        int best = 0;
        long bestCount = -1;
        for (int i = 0; i < cluster.getRegionServerThreads().size(); i++) {
            if (!cluster.getRegionServerThreads().get(i).isAlive()) {
                continue;
            }
            HRegionServer rs = cluster.getRegionServer(i);
            long n = rs.getRegions().stream().map(r -> r.getRegionInfo())
                    .map(RegionInfo::getTable)
                    .filter(t -> t.getNamespaceAsString().equals(stack.layout.namespace()))
                    .count();
            if (n > bestCount) {
                best = i;
                bestCount = n;
            }
        }
        return best;
    }
}
