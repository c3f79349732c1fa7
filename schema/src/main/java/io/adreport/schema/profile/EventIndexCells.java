package io.adreport.schema.profile;

import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.Event;
import io.adreport.schema.table.TableLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;

/**
 * Layout of family {@code ev} of the profiles table: the device's reverse index, so that a
 * privacy deletion finds a device's raw events without scanning the raw table (whose rows are
 * keyed by event, not by device).
 *
 * <pre>row       = {@link ProfileKey#row} of the event's device hash (the same row as its views)
 * qualifier = the raw event's row key, byte for byte ({@code schema.rowkey.RowKeyCodec#rawKey})
 * value     = empty;  cell timestamp = the server's write time</pre>
 *
 * <p>Frozen with the table version. The family TTL is the raw table's ({@code cube.rawTtlDays}) and
 * both cells take the server's write time, so an index cell expires with the row it points to.
 * Living in the device's profile row means that one row Delete removes the profile (segments,
 * views) and the index at once. Replays write the same qualifier: idempotent. A raw row key
 * names no device (salt, day, type, event id), so the index holds nothing the raw table does not.
 */
public final class EventIndexCells {
    private EventIndexCells() {
    }

    /**
     * Adds the index cell of raw row {@code rawKey} to {@code put} (a Put on the device's profile
     * row, e.g. the view write of the same event); returns {@code put}.
     */
    public static Put add(Put put, byte[] rawKey) {
        return put.addColumn(TableLayout.EVENT_INDEX_FAMILY, rawKey, new byte[0]);
    }

    /** The Put of index cell {@code rawKey} alone, or null when {@code e} carries no device. */
    public static Put put(ProfileKey keys, Event e, byte[] rawKey) {
        String device = e.hashed().get(ProfileModel.DEVICE_FIELD);
        return device == null ? null : add(new Put(keys.row(device)), rawKey);
    }

    /** The raw row keys listed in {@code r} (a read of the device's row, family {@code ev}). */
    public static List<byte[]> rawKeys(Result r) {
        List<byte[]> out = new ArrayList<>();
        if (r == null || r.isEmpty()) {
            return out;
        }
        for (Cell c : r.rawCells()) {
            if (CellUtil.matchingFamily(c, TableLayout.EVENT_INDEX_FAMILY)) {
                out.add(CellUtil.cloneQualifier(c));
            }
        }
        return out;
    }
}
