package io.adreport.benchmarks.serving;

import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.Segments;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * The serving benchmarks' device profiles, written with the product's own codecs (profile row key,
 * view and segment cells) as the aggregator and {@code segments load} write them: devices
 * {@code bench-device-0 .. N-1}, each with views of 0..6 of the given campaigns (1..4 views each
 * within the last 30 days) and one segment, from a fixed seed, so a run on a mini cluster and a
 * run on the multi-host cluster read the same rows. Both {@code ServeCheckBenchmarkTest} and
 * {@link ServingFloor} (the cluster's floor) load them here.
 */
public final class ProfileFixture {
    /** What was written: view cells, segment cells, devices with at least one view. */
    public record Loaded(long views, long segments, long devicesWithViews) {
    }

    private ProfileFixture() {
    }

    /**
     * The benchmarks' {@code n} campaigns, "advertiser/campaign": {@code PREFIXadv(c % 10)/PREFIXcamp(c)}
     * (ten advertisers); the prefix keeps them apart from other campaigns of a shared cluster.
     */
    public static List<String> campaigns(String prefix, int n) {
        List<String> out = new java.util.ArrayList<>();
        for (int c = 0; c < n; c++) {
            out.add(prefix + "adv" + c % 10 + "/" + prefix + "camp" + c);
        }
        return out;
    }

    /** The view-cell prefixes of "advertiser/campaign" keys: what a check's Get filters on ({@code ProfileGets.check}). */
    public static List<byte[]> viewPrefixes(List<String> campaigns) {
        List<byte[]> out = new java.util.ArrayList<>();
        for (String key : campaigns) {
            int slash = key.indexOf('/');
            out.add(ViewCells.prefix(key.substring(0, slash), key.substring(slash + 1)));
        }
        return out;
    }

    /** The device id of device {@code d}, as the check's and the wrk script's requests send it. */
    public static String device(int d) {
        return "bench-device-" + d;
    }

    /**
     * Writes {@code devices} profiles into {@code layout}'s profiles table.
     *
     * @param campaigns "advertiser/campaign" keys the views are of
     */
    public static Loaded load(Connection connection, TableLayout layout, DeviceHasher hasher, int devices,
                              List<String> campaigns, Instant now) throws IOException {
        ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
        SplittableRandom rng = new SplittableRandom(42);
        long views = 0;
        long segments = 0;
        long withViews = 0;
        try (BufferedMutator m = connection.getBufferedMutator(layout.profilesTable())) {
            for (int d = 0; d < devices; d++) {
                Put p = new Put(keys.row(hasher.hash(device(d)))).setDurability(Durability.SKIP_WAL);
                int viewed = rng.nextInt(7);
                withViews += viewed > 0 ? 1 : 0;
                for (int c = 0; c < viewed; c++) {
                    String key = campaigns.get(rng.nextInt(campaigns.size()));
                    int slash = key.indexOf('/');
                    int n = 1 + rng.nextInt(4);
                    for (int v = 0; v < n; v++) {
                        long ts = now.toEpochMilli() - rng.nextLong(30L * 86_400_000L);
                        p.addColumn(TableLayout.VIEW_FAMILY, ViewCells.qualifier(key.substring(0, slash), key.substring(slash + 1), ts,
                                d + "-" + c + "-" + v), ts, new byte[0]);
                        views++;
                    }
                }
                p.addColumn(TableLayout.SEGMENT_FAMILY, Segments.qualifier("seg" + rng.nextInt(100)), Segments.value(rng.nextDouble()));
                segments++;
                m.mutate(p);
            }
        }
        return new Loaded(views, segments, withViews);
    }

    /** Flushes and major-compacts {@code table}, then waits until no compaction runs (one store file per family). */
    public static void compact(Admin admin, TableName table) throws IOException, InterruptedException {
        admin.flush(table);
        admin.majorCompact(table);
        Thread.sleep(2000);
        while (admin.getCompactionState(table) != CompactionState.NONE) {
            Thread.sleep(500);
        }
    }

    /** Scans {@code table} with block caching on, so no phase pays the first reads from disk; returns the rows read. */
    public static long warm(Connection connection, TableName table) throws IOException {
        long rows = 0;
        try (Table t = connection.getTable(table);
             ResultScanner rs = t.getScanner(new Scan().setCacheBlocks(true).setCaching(1000))) {
            for (Result r : rs) {
                rows++;
            }
        }
        return rows;
    }
}
