package io.adreport.serving.check;

import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;

/** The check's profile Get for benchmarks outside this package, beside the read it replaced. */
public final class ProfileGets {
    private ProfileGets() {
    }

    /** The Get a check makes ({@link ProfileReader#get}): one multi-prefix filter; K is applied while decoding. */
    public static Get check(byte[] row, List<byte[]> campaignPrefixes) {
        return ProfileReader.get(row, campaignPrefixes);
    }

    /**
     * The read it replaced: the newest K views per campaign bounded on the region server, one
     * {@code ColumnPrefixFilter AND ColumnPaginationFilter(K, prefix)} branch per campaign, ORed.
     */
    public static Get perCampaignBound(byte[] row, List<byte[]> campaignPrefixes) {
        List<Filter> perCampaign = new ArrayList<>(campaignPrefixes.size());
        for (byte[] prefix : campaignPrefixes) {
            perCampaign.add(new FilterList(FilterList.Operator.MUST_PASS_ALL, new ColumnPrefixFilter(prefix),
                    new ColumnPaginationFilter(ViewCells.MAX_VIEWS_KEPT, prefix)));
        }
        return new Get(row).addFamily(TableLayout.SEGMENT_FAMILY).addFamily(TableLayout.VIEW_FAMILY)
                .setFilter(new FilterList(FilterList.Operator.MUST_PASS_ONE,
                        new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.SEGMENT_FAMILY)),
                        new FilterList(FilterList.Operator.MUST_PASS_ALL,
                                new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.VIEW_FAMILY)),
                                new FilterList(FilterList.Operator.MUST_PASS_ONE, perCampaign))));
    }
}
