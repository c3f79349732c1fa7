package io.adreport.serving.check;

import io.adreport.schema.table.TableLayout;
import java.util.List;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;

/** The check's profile Get for benchmarks outside this package, beside the read it replaced. */
public final class ProfileGets {
    private ProfileGets() {
    }

    /** The Get a check makes ({@link ProfileReader#get}): newest K views per campaign. */
    public static Get bounded(byte[] row, List<byte[]> campaignPrefixes) {
        return ProfileReader.get(row, campaignPrefixes);
    }

    /** The read before the count bound: one multi-prefix filter, every view of the asked campaigns. */
    public static Get unbounded(byte[] row, List<byte[]> campaignPrefixes) {
        return new Get(row).addFamily(TableLayout.SEGMENT_FAMILY).addFamily(TableLayout.VIEW_FAMILY)
                .setFilter(new FilterList(FilterList.Operator.MUST_PASS_ONE,
                        new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.SEGMENT_FAMILY)),
                        new FilterList(FilterList.Operator.MUST_PASS_ALL,
                                new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(TableLayout.VIEW_FAMILY)),
                                new MultipleColumnPrefixFilter(campaignPrefixes.toArray(byte[][]::new)))));
    }
}
