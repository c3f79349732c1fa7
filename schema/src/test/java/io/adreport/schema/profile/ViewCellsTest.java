package io.adreport.schema.profile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.campaign.CampaignInvalid;
import io.adreport.schema.campaign.CapWindow;
import io.adreport.schema.campaign.FrequencyCap;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.junit.jupiter.api.Test;

class ViewCellsTest {
    @Test
    void goldenBytesAndRoundTrip() {
        byte[] q = ViewCells.qualifier("a1", "c1", 1_000L, "imp-1");
        // "a1" 00 "c1" 00 | Long.MAX_VALUE - 1000 | crc32("imp-1")
        assertEquals("61310063310" + "0" + "7ffffffffffffc17", HexFormat.of().formatHex(q, 0, 14));
        assertEquals(18, q.length);
        assertEquals(new ViewCells.View("a1/c1", 1_000L), ViewCells.decode(q));
        assertArrayEquals(q, ViewCells.qualifier("a1", "c1", 1_000L, "imp-1"), "a replay writes the same cell");
    }

    @Test
    void newerViewsSortFirstWithinACampaign() {
        byte[] older = ViewCells.qualifier("a", "c", 1_000L, "x");
        byte[] newer = ViewCells.qualifier("a", "c", 2_000L, "x");
        assertTrue(Arrays.compareUnsigned(newer, older) < 0);
        byte[] prefix = ViewCells.prefix("a", "c");
        assertArrayEquals(prefix, Arrays.copyOf(newer, prefix.length));
    }

    @Test
    void profileKeyIsFixedWidthAndSalted() {
        String hash = "ff".repeat(32);
        byte[] row = new ProfileKey(16).row(hash);
        assertEquals(33, row.length);
        assertEquals(0xff % 16, row[0]);
        assertEquals(hash, ProfileKey.hashOf(row));
        assertThrows(IllegalArgumentException.class, () -> new ProfileKey(16).row("abc"));
    }

    @Test
    void windowsParseAndRefuseWithTheFieldNamed() {
        assertEquals(5 * 60_000L, CapWindow.parse("w", "5m").millis());
        assertEquals(120 * 86_400_000L, CapWindow.parse("w", "120d").millis());
        CampaignInvalid e = assertThrows(CampaignInvalid.class, () -> CapWindow.parse("frequencyCaps.window", "121d"));
        assertEquals("frequencyCaps.window", e.name());
        assertThrows(CampaignInvalid.class, () -> CapWindow.parse("w", "5s"));
        assertThrows(CampaignInvalid.class, () -> CapWindow.parse("w", "0m"));
        CapWindow w = CapWindow.parse("w", "5m");
        assertTrue(w.contains(1, 300_000L), "a view leaves the window exactly window-length after it");
        assertTrue(!w.contains(0, 300_000L));
    }

    @Test
    void theCountBoundNamesTheOldestCellsOfEachCampaignPastTheBound() {
        byte[] row = new byte[] {1};
        byte[] f = "fc".getBytes();
        List<Cell> cells = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            cells.add(new KeyValue(row, f, ViewCells.qualifier("a", "hot", 1_000L + i, "h" + i), 1_000L + i, new byte[0]));
        }
        for (int i = 0; i < 2; i++) {
            cells.add(new KeyValue(row, f, ViewCells.qualifier("a", "cold", 5_000L + i, "c" + i), 5_000L + i, new byte[0]));
        }
        // a campaign whose name extends another's is a different campaign
        for (int i = 0; i < 4; i++) {
            cells.add(new KeyValue(row, f, ViewCells.qualifier("a", "hotter", 2_000L + i, "x" + i), 2_000L + i, new byte[0]));
        }
        cells.sort(CellComparator.getInstance());
        List<Cell> beyond = beyond(cells, 3);
        List<String> got = beyond.stream().map(c -> ViewCells.decode(CellUtil.cloneQualifier(c)).toString()).sorted().toList();
        assertEquals(List.of(new ViewCells.View("a/hot", 1_000L).toString(), new ViewCells.View("a/hot", 1_001L).toString(),
                new ViewCells.View("a/hotter", 2_000L).toString()), got, "the oldest past the newest 3 of each campaign");
        assertEquals(0, beyond(cells, 5).size());
        assertThrows(IllegalArgumentException.class, () -> new ViewCells.CountBound(0));
    }

    /** The cells a fresh bound of {@code keep} names as beyond, fed in stored order as a row read gives them. */
    private static List<Cell> beyond(List<Cell> cells, int keep) {
        ViewCells.CountBound bound = new ViewCells.CountBound(keep);
        return cells.stream().filter(bound::beyond).toList();
    }

    @Test
    void noAcceptedCapExceedsWhatIsKept() {
        CapWindow day = CapWindow.parse("w", "1d");
        assertEquals(ViewCells.MAX_VIEWS_KEPT, new FrequencyCap(ViewCells.MAX_VIEWS_KEPT, day).max());
        CampaignInvalid e = assertThrows(CampaignInvalid.class, () -> new FrequencyCap(ViewCells.MAX_VIEWS_KEPT + 1, day));
        assertEquals("frequencyCaps.max", e.name());
    }
}
