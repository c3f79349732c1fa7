package io.adreport.serving.check;

import io.adreport.schema.hbase.DeadlineReads;
import io.adreport.schema.hbase.TimedTables;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.Segments;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Consistency;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;

/**
 * Reads one device's profile with exactly one Get: all of family {@code seg} and, of family
 * {@code fc}, only the views of the asked campaigns (one {@link MultipleColumnPrefixFilter} over
 * their qualifier prefixes, evaluated on the region server, so a device seen by a thousand
 * campaigns ships only the fifty asked about); of each campaign the newest
 * {@link ViewCells#MAX_VIEWS_KEPT} views are kept.
 *
 * <p><b>Where the count bound is applied.</b> A campaign's views are stored newest first, so its
 * first K cells are its newest K views, which is exact for every accepted cap ({@link ViewCells}
 * explains why). The bound is applied here, while decoding: cells past the K-th of a campaign are
 * skipped undecoded. It used to be applied on the region server as well (one
 * {@code ColumnPrefixFilter AND ColumnPaginationFilter(K)} branch per asked campaign, ORed), but
 * fifty branches evaluated on every cell cost about a quarter of the Get's throughput on every
 * check, to save shipping cells that exist only on a device shown one campaign more than K times
 * since the last nightly trim (which keeps storage at K per campaign). The single sorted-prefix
 * filter seeks from one asked campaign to the next instead.
 *
 * <p><b>While the device secret rotates</b> a device may have a row under each secret; both are
 * read in one multi-Get and their cells merged into one row's before decoding ({@link #merge}), so
 * the count bound and the windows apply to the union of the views, each view once. Without a
 * previous secret there is one hash and exactly the one Get above.
 *
 * <p>Decoding walks the cells once: within family {@code fc} a campaign's cells are contiguous
 * (the campaign prefix leads the qualifier), so each campaign's times fill one array.
 */
final class ProfileReader {
    private static final long[] NO_VIEWS = new long[0];
    private static final Cell[] NO_CELLS = new Cell[0];

    private final Connection connection;
    private final TableLayout layout;
    private final ProfileKey keys;
    private final boolean timeline;
    private final Duration deadline;

    /**
     * @param deadline how long one read may take in all (operation and RPC timeout of its Table);
     *                 zero for the client's own timeouts
     */
    ProfileReader(Connection connection, TableLayout layout, boolean timeline, Duration deadline) {
        this.connection = connection;
        this.layout = layout;
        this.keys = new ProfileKey(layout.cube().saltBuckets());
        this.timeline = timeline;
        this.deadline = deadline;
    }

    /**
     * A device's profile as read.
     *
     * @param found    the row exists
     * @param stale    a secondary replica answered (TIMELINE reads only)
     * @param segments segment id → score
     * @param views    {@code advertiser/campaign} → view times, newest first, at most K
     */
    record Profile(boolean found, boolean stale, Map<String, Double> segments, Map<String, long[]> views) {
        /** The views of {@code campaignKey}, newest first (empty when none). */
        long[] viewsOf(String campaignKey) {
            long[] v = views.get(campaignKey);
            return v == null ? NO_VIEWS : v;
        }
    }

    /** The one Get of a check: row {@code row}, its segments and the views of each campaign asked. */
    static Get get(byte[] row, List<byte[]> campaignPrefixes) {
        Get get = new Get(row).addFamily(TableLayout.SEGMENT_FAMILY);
        if (!campaignPrefixes.isEmpty()) {
            get.addFamily(TableLayout.VIEW_FAMILY);
            get.setFilter(new FilterList(FilterList.Operator.MUST_PASS_ONE,
                    new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.SEGMENT_FAMILY)),
                    new FilterList(FilterList.Operator.MUST_PASS_ALL,
                            new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.VIEW_FAMILY)),
                            new MultipleColumnPrefixFilter(campaignPrefixes.toArray(byte[][]::new)))));
        }
        return get;
    }

    /**
     * The profile of the device stored under {@code deviceHashes}: one hash, one Get; two (current
     * first, while the device secret rotates) are read in one multi-Get and merged ({@link #merge}).
     */
    Profile read(List<String> deviceHashes, List<byte[]> campaignPrefixes) throws IOException {
        List<Get> gets = new ArrayList<>(deviceHashes.size());
        for (String hash : deviceHashes) {
            Get get = get(keys.row(hash), campaignPrefixes);
            if (timeline) {
                get.setConsistency(Consistency.TIMELINE);
            }
            gets.add(get);
        }
        Result r;
        Cell[] cells;
        boolean found;
        boolean stale;
        if (gets.size() == 1) {
            Get get = gets.get(0);
            r = read(() -> getOne(get));
            cells = r.rawCells();
            found = !r.isEmpty();
            stale = r.isStale();
        } else {
            Result[] rs = read(() -> getAll(gets));
            cells = merge(rs[0].rawCells(), rs[1].rawCells());
            found = !rs[0].isEmpty() || !rs[1].isEmpty();
            stale = rs[0].isStale() || rs[1].isStale();
        }
        Map<String, Double> segments = new TreeMap<>();
        Map<String, long[]> views = new HashMap<>();
        ViewCells.CountBound bound = new ViewCells.CountBound(ViewCells.MAX_VIEWS_KEPT);
        String runKey = null;
        long[] run = new long[16];
        int inRun = 0;
        for (Cell c : cells == null ? NO_CELLS : cells) {
            if (CellUtil.matchingFamily(c, TableLayout.SEGMENT_FAMILY)) {
                segments.put(Segments.segment(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength()),
                        Segments.score(c.getValueArray(), c.getValueOffset(), c.getValueLength()));
                continue;
            }
            if (bound.beyond(c)) {
                continue; // beyond the newest K of its campaign: not needed (see the class comment)
            }
            ViewCells.View v = ViewCells.decode(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength());
            if (!v.campaignKey().equals(runKey)) {
                if (runKey != null) {
                    views.put(runKey, Arrays.copyOf(run, inRun));
                }
                runKey = v.campaignKey();
                inRun = 0;
            }
            if (inRun == run.length) {
                run = Arrays.copyOf(run, run.length * 2);
            }
            run[inRun++] = v.tsMillis();
        }
        if (runKey != null) {
            views.put(runKey, Arrays.copyOf(run, inRun));
        }
        return new Profile(found, stale, segments, views);
    }

    /**
     * The cells of two rows of one device (current, previous) as one row's: in stored order (family,
     * then qualifier), a cell present in both taken once, from the current row. A view's qualifier
     * names the impression (time and event id), so a view the nightly move has copied to the
     * current row but not yet deleted from the previous one counts once; a segment in both takes
     * the current row's score.
     */
    static Cell[] merge(Cell[] current, Cell[] previous) {
        Cell[] a = current == null ? NO_CELLS : current;
        Cell[] b = previous == null ? NO_CELLS : previous;
        if (b.length == 0) {
            return a;
        }
        if (a.length == 0) {
            return b;
        }
        CellComparator cmp = CellComparator.getInstance();
        List<Cell> out = new ArrayList<>(a.length + b.length);
        int i = 0;
        int j = 0;
        while (i < a.length || j < b.length) {
            int c = i == a.length ? 1 : j == b.length ? -1 : order(cmp, a[i], b[j]);
            if (c <= 0) {
                out.add(a[i++]);
                if (c == 0) {
                    j++;
                }
            } else {
                out.add(b[j++]);
            }
        }
        return out.toArray(Cell[]::new);
    }

    private static int order(CellComparator cmp, Cell x, Cell y) {
        int f = cmp.compareFamilies(x, y);
        return f != 0 ? f : cmp.compareQualifiers(x, y);
    }

    /**
     * {@code op} on the calling thread without a deadline, else under it: its Table gives up after
     * the deadline (operation and RPC timeouts), and the request thread waits at most that long for
     * it ({@link DeadlineReads}), because not every wait of the HBase client is bounded by the
     * Table's timeouts. A read past the deadline is cancelled and reported as an
     * {@link IOException}; so is a read refused because every reader thread is still held by
     * earlier slow reads (the pool is bounded: a stuck region server cannot take all of the
     * process's threads).
     */
    private <T> T read(Read<T> op) throws IOException {
        return deadline.isZero() ? op.run() : READERS.call(op::run, deadline);
    }

    private Result getOne(Get get) throws IOException {
        try (Table t = table()) {
            return t.get(get);
        }
    }

    private Result[] getAll(List<Get> gets) throws IOException {
        try (Table t = table()) {
            return t.get(gets);
        }
    }

    /** The profiles table, with the deadline as its operation and RPC timeouts when there is one. */
    private Table table() throws IOException {
        return deadline.isZero() ? connection.getTable(layout.profilesTable())
                : TimedTables.open(connection, layout.profilesTable(), deadline, deadline);
    }

    /** One read of the profiles table. */
    @FunctionalInterface
    private interface Read<T> {
        T run() throws IOException;
    }

    /** Most profile reads in flight at once under a deadline (each also bounded by its Table's timeouts). */
    static final int MAX_READERS = 256;

    private static final DeadlineReads READERS = new DeadlineReads("adreport-profile-read", MAX_READERS, 0,
            new DeadlineReads.Wording("profile read refused: all " + MAX_READERS + " reader threads wait on slow reads",
                    "profile read missed its deadline of ", "interrupted while reading a profile"));
}
