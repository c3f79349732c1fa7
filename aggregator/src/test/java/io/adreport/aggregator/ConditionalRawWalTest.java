package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With several aggregator instances the raw write is a put-if-absent sent {@code ASYNC_WAL},
 * made durable by one {@code SYNC_WAL} delete marker per region before any answer
 * ({@code store.RawPuts}). A region observer records every raw mutation the region server
 * applies, in order; after each answered request, every region that applied one of its rows
 * unsynced must have applied a synced marker after its last such row, and most rows must have
 * been sent unsynced (only a region's lone row of a group keeps its own sync). The counters are checked against the test's own
 * recount ({@link Recount}) and the markers must be invisible to a reader of the raw table.
 */
@ExtendWith(HBaseExtension.class)
class ConditionalRawWalTest {

    @Test
    void every_region_that_applied_a_row_is_synced_once_after_it_before_the_answer(MiniHBase hbase) throws Exception {
        TestStack.Window w = TestStack.fresh(hbase, "walsync").window();
        w.observeRaw(WalRecorder.class);
        Traffic traffic = new Traffic(61);
        Recount oracle = new Recount();
        Map<String, String> settings = new HashMap<>(Map.of("aggregator.instances", "2", "aggregator.id", "walsync-a"));
        Aggregator a = w.start(settings);
        try {
            List<Beacon> impressions = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                List<Beacon> batch = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    batch.add(traffic.impression(w.now, Duration.ofHours(6)));
                }
                if (round > 0) { // replays of earlier events: put-if-absent not applied, nothing to sync for them
                    batch.addAll(impressions.subList(0, 20));
                }
                impressions.addAll(batch);
                int from = WalRecorder.seen.size();
                StringBuilder body = new StringBuilder();
                batch.forEach(b -> body.append(b.json()).append('\n'));
                assertEquals(200, TestStack.post(a, body.toString()).statusCode());
                List<WalRecorder.Applied> ops = List.copyOf(WalRecorder.seen.subList(from, WalRecorder.seen.size()));
                assertSyncedPerRegion(ops, round);
                oracle.phase(batch);
            }
            a.flushNow();
            assertEquals(new TreeMap<>(oracle.expected), new TreeMap<>(w.counters()), "live counters equal the recount");
            assertEquals(oracle.unique, w.rawRows().size(), "every distinct event stored once");
            try (Table t = hbase.connection().getTable(w.layout().rawTable()); ResultScanner rs = t.getScanner(new Scan())) {
                for (Result r : rs) {
                    assertTrue(r.containsColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE), "a reader sees only raw events");
                }
            }
        } finally {
            a.close();
        }
    }

    /** Of one request's applied raw mutations: each region's rows are followed by one synced marker. */
    private static void assertSyncedPerRegion(List<WalRecorder.Applied> ops, int round) {
        Map<String, Long> lastRow = new HashMap<>();
        Map<String, Long> lastMark = new HashMap<>();
        int rows = 0;
        int unsynced = 0;
        for (WalRecorder.Applied op : ops) {
            if (op.marker()) {
                assertEquals(Durability.SYNC_WAL, op.durability(), "the marker is synced");
                lastMark.put(op.region(), op.seq());
            } else if (op.rawRow()) {
                rows++;
                if (op.durability() == Durability.ASYNC_WAL) { // a region's lone row of a group keeps SYNC_WAL
                    unsynced++;
                    lastRow.put(op.region(), op.seq());
                }
            }
        }
        assertEquals(200, rows, "round " + round + ": the new rows applied, the replays not");
        assertTrue(unsynced > rows / 2, unsynced + " of " + rows + " rows sent ASYNC_WAL: a put-if-absent is not synced row by row");
        assertTrue(lastRow.size() > 1, "the rows span regions: " + lastRow.keySet());
        for (Map.Entry<String, Long> e : lastRow.entrySet()) {
            Long mark = lastMark.get(e.getKey());
            assertTrue(mark != null && mark > e.getValue(), "region " + e.getKey() + " synced after its last row, before the answer");
        }
        assertEquals(lastRow.keySet(), lastMark.keySet(), "markers only where rows were applied");
        long markers = ops.stream().filter(WalRecorder.Applied::marker).count();
        assertTrue(markers < rows / 4, markers + " markers for " + rows + " rows: one per region and group commit, not per row");
    }


    /** Records each raw mutation a region applies: region, kind, durability, in one global order. */
    public static final class WalRecorder implements RegionCoprocessor, RegionObserver {
        record Applied(long seq, String region, boolean rawRow, boolean marker, Durability durability) {
        }

        static final List<Applied> seen = new CopyOnWriteArrayList<>();
        private static final AtomicLong order = new AtomicLong();

        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        @Override
        public void postBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch) {
            String region = c.getEnvironment().getRegionInfo().getEncodedName();
            for (int i = 0; i < batch.size(); i++) {
                Mutation m = batch.getOperation(i);
                boolean marker = m instanceof Delete && hasQualifier(m, "wal-sync");
                boolean rawRow = m instanceof Put && hasQualifier(m, "v");
                if (marker || rawRow) {
                    seen.add(new Applied(order.incrementAndGet(), region, rawRow, marker, m.getDurability()));
                }
            }
        }

        private static boolean hasQualifier(Mutation m, String qualifier) {
            for (List<Cell> cells : m.getFamilyCellMap().values()) {
                for (Cell cell : cells) {
                    if (new String(CellUtil.cloneQualifier(cell), java.nio.charset.StandardCharsets.UTF_8).equals(qualifier)) {
                        return true;
                    }
                }
            }
            return false;
        }
    }
}
