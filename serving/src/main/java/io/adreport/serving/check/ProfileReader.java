package io.adreport.serving.check;

import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.Segments;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Consistency;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;

/**
 * Reads one device's profile with exactly one Get: all of family {@code seg} and, of family
 * {@code fc}, only the views of the asked campaigns (a column-prefix filter evaluated on the
 * region server, so a device seen by a thousand campaigns ships only the fifty asked about), and
 * of each campaign at most its newest {@link ViewCells#MAX_VIEWS_KEPT} views.
 *
 * <p><b>The per-campaign bound.</b> Each asked campaign is one branch {@code prefix AND
 * ColumnPaginationFilter(K, prefix)} of an OR: the pagination filter starts counting at the
 * campaign's first qualifier and ends its branch after K columns, and since a campaign's views
 * are stored newest first, those are the newest K, which is exact for every accepted cap
 * ({@link ViewCells} explains why). A hot device that the nightly pass has not trimmed yet thus
 * ships and decodes at most K cells per campaign; the region server still steps over its excess
 * (without shipping it) until the trim. The branches also see the {@code seg} cells, but only
 * after every {@code fc} cell (families are read in name order, {@code fc} before {@code seg}),
 * when their counts no longer matter.
 */
final class ProfileReader {
    private final Connection connection;
    private final TableLayout layout;
    private final ProfileKey keys;
    private final boolean timeline;

    ProfileReader(Connection connection, TableLayout layout, boolean timeline) {
        this.connection = connection;
        this.layout = layout;
        this.keys = new ProfileKey(layout.cube().saltBuckets());
        this.timeline = timeline;
    }

    /**
     * A device's profile as read.
     *
     * @param found    the row exists
     * @param stale    a secondary replica answered (TIMELINE reads only)
     * @param segments segment id → score
     * @param views    {@code advertiser/campaign} → view times, newest first
     */
    record Profile(boolean found, boolean stale, Map<String, Double> segments, Map<String, long[]> views) {
    }

    /** The one Get of a check: row {@code row}, its segments and the newest K views of each campaign asked. */
    static Get get(byte[] row, List<byte[]> campaignPrefixes) {
        Get get = new Get(row).addFamily(TableLayout.SEGMENT_FAMILY);
        if (!campaignPrefixes.isEmpty()) {
            get.addFamily(TableLayout.VIEW_FAMILY);
            List<Filter> perCampaign = new ArrayList<>(campaignPrefixes.size());
            for (byte[] prefix : campaignPrefixes) {
                perCampaign.add(new FilterList(FilterList.Operator.MUST_PASS_ALL, new ColumnPrefixFilter(prefix),
                        new ColumnPaginationFilter(ViewCells.MAX_VIEWS_KEPT, prefix)));
            }
            FilterList viewFilter = new FilterList(FilterList.Operator.MUST_PASS_ALL,
                    new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.VIEW_FAMILY)),
                    new FilterList(FilterList.Operator.MUST_PASS_ONE, perCampaign));
            get.setFilter(new FilterList(FilterList.Operator.MUST_PASS_ONE,
                    new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.SEGMENT_FAMILY)), viewFilter));
        }
        return get;
    }

    Profile read(String deviceHash, List<byte[]> campaignPrefixes) throws IOException {
        Get get = get(keys.row(deviceHash), campaignPrefixes);
        if (timeline) {
            get.setConsistency(Consistency.TIMELINE);
        }
        Result r;
        try (Table t = connection.getTable(layout.profilesTable())) {
            r = t.get(get);
        }
        Map<String, Double> segments = new TreeMap<>();
        Map<String, List<Long>> byCampaign = new HashMap<>();
        for (Cell c : r.rawCells()) {
            if (CellUtil.matchingFamily(c, TableLayout.SEGMENT_FAMILY)) {
                segments.put(Segments.segment(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength()),
                        Segments.score(c.getValueArray(), c.getValueOffset(), c.getValueLength()));
            } else {
                ViewCells.View v = ViewCells.decode(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength());
                byCampaign.computeIfAbsent(v.campaignKey(), k -> new ArrayList<>()).add(v.tsMillis());
            }
        }
        Map<String, long[]> views = new HashMap<>();
        byCampaign.forEach((k, list) -> views.put(k, list.stream().mapToLong(Long::longValue).toArray()));
        return new Profile(!r.isEmpty(), r.isStale(), segments, views);
    }
}
