package io.adreport.serving.check;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The merge of a device's two rows during a secret rotation ({@link ProfileReader#merge}), pure. */
class ProfileMergeTest {
    private static final byte[] CURRENT = Bytes.toBytes("row-current");
    private static final byte[] PREVIOUS = Bytes.toBytes("row-previous");

    @Test
    void a_view_in_both_rows_counts_once_and_the_result_is_in_stored_order() {
        Cell[] current = sorted(view(CURRENT, "c1", 5_000, "e5"), view(CURRENT, "c1", 3_000, "e3"), view(CURRENT, "c2", 9_000, "e9"),
                segment(CURRENT, "s1", "0.9"));
        Cell[] previous = sorted(view(PREVIOUS, "c1", 3_000, "e3"), view(PREVIOUS, "c1", 1_000, "e1"), view(PREVIOUS, "c0", 2_000, "e2"),
                segment(PREVIOUS, "s1", "0.1"), segment(PREVIOUS, "s2", "0.5"));
        Cell[] merged = ProfileReader.merge(current, previous);

        List<String> expected = List.of("fc adv/c0 2000", "fc adv/c1 5000", "fc adv/c1 3000", "fc adv/c1 1000", "fc adv/c2 9000",
                "seg s1 0.9", "seg s2 0.5");
        assertEquals(expected, describe(merged), "each view once (e3 is in both), newest first per campaign, the current segment score");
        for (int i = 1; i < merged.length; i++) {
            int f = CellComparator.getInstance().compareFamilies(merged[i - 1], merged[i]);
            assertEquals(true, f < 0 || f == 0 && CellComparator.getInstance().compareQualifiers(merged[i - 1], merged[i]) < 0);
        }
    }

    @Test
    void an_empty_row_on_either_side_is_the_other_row_unchanged() {
        Cell[] one = sorted(view(CURRENT, "c1", 5_000, "e5"));
        assertSame(one, ProfileReader.merge(one, new Cell[0]));
        assertSame(one, ProfileReader.merge(null, one));
        assertArrayEquals(new Cell[0], ProfileReader.merge(null, null));
    }

    private static Cell view(byte[] row, String campaign, long ts, String eventId) {
        return new KeyValue(row, TableLayout.VIEW_FAMILY, ViewCells.qualifier("adv", campaign, ts, eventId), ts, new byte[0]);
    }

    private static Cell segment(byte[] row, String segment, String score) {
        return new KeyValue(row, TableLayout.SEGMENT_FAMILY, Bytes.toBytes(segment), 1L, Bytes.toBytes(score));
    }

    private static Cell[] sorted(Cell... cells) {
        Cell[] out = cells.clone();
        Arrays.sort(out, CellComparator.getInstance());
        return out;
    }

    private static List<String> describe(Cell[] cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            if (CellUtil.matchingFamily(c, TableLayout.VIEW_FAMILY)) {
                ViewCells.View v = ViewCells.decode(CellUtil.cloneQualifier(c));
                out.add("fc " + v.campaignKey() + " " + v.tsMillis());
            } else {
                out.add("seg " + Bytes.toString(CellUtil.cloneQualifier(c)) + " " + Bytes.toString(CellUtil.cloneValue(c)));
            }
        }
        return out;
    }
}
