package io.adreport.schema.profile;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Layout of family {@code fc} of the profiles table: a device's view history, one cell per
 * impression it was shown.
 *
 * <pre>qualifier = advertiser 0x00 campaign 0x00 | (Long.MAX_VALUE - tsMillis) 8 bytes | crc32(eventId) 4 bytes
 * value     = empty;  cell timestamp = the impression's time</pre>
 *
 * <p><b>Why timestamps, not per-window counters.</b> Caps are rolling windows from 5 minutes to
 * 120 days and may change at any time; a timestamp per view answers any window exactly (a view at
 * {@code t} counts while {@code now - window < t}), counters per window cannot. The history is
 * bounded per device and campaign: by time (family TTL = the longest window, on the impression's
 * time, so an old view expires by itself) and by count (a device can only reach a campaign's
 * largest cap while it is served; beyond {@link #MAX_VIEWS_KEPT} views the oldest are dropped by
 * the nightly pass and the device is reported as hot, see the aggregator's hot-device alarm).
 *
 * <p><b>Idempotent.</b> A replayed impression (same event id, same time) writes the same
 * qualifier, so it is never a second view. Newest first within a campaign: one Get with a
 * column-prefix filter per requested campaign reads a device's history of 50 campaigns.
 */
public final class ViewCells {
    private static final int SUFFIX = 8 + 4;

    private ViewCells() {
    }

    /** A decoded cell: the campaign ({@code advertiser/campaign}) and the view's time. */
    public record View(String campaignKey, long tsMillis) {
    }

    /**
     * The one write of a view: the Put of impression {@code e} into its device's row, or null when
     * {@code e} is no view (not an impression, no device, no advertiser or campaign). The cell
     * timestamp is the impression's time, so the family TTL expires it by event time. Callers
     * first drop unidentified devices ({@link UnidentifiedDevices#isUnidentifiedHash}).
     */
    public static org.apache.hadoop.hbase.client.Put put(ProfileKey keys, io.adreport.schema.event.Event e) {
        String device = e.hashed().get(ProfileModel.DEVICE_FIELD);
        String advertiser = e.dimensions().get(ProfileModel.ADVERTISER);
        String campaign = e.dimensions().get(ProfileModel.CAMPAIGN);
        if (!ProfileModel.IMPRESSION.equals(e.type()) || device == null || advertiser == null || campaign == null) {
            return null;
        }
        long ts = e.ts().toEpochMilli();
        return new org.apache.hadoop.hbase.client.Put(keys.row(device)).addColumn(io.adreport.schema.table.TableLayout.VIEW_FAMILY,
                qualifier(advertiser, campaign, ts, e.id()), ts, new byte[0]);
    }

    /** Qualifier prefix of every view of {@code advertiser/campaign}. */
    public static byte[] prefix(String advertiser, String campaign) {
        return (advertiser + "\0" + campaign + "\0").getBytes(StandardCharsets.UTF_8);
    }

    /** The qualifier of one impression. */
    public static byte[] qualifier(String advertiser, String campaign, long tsMillis, String eventId) {
        byte[] p = prefix(advertiser, campaign);
        CRC32 crc = new CRC32();
        crc.update(eventId.getBytes(StandardCharsets.UTF_8));
        return ByteBuffer.allocate(p.length + SUFFIX).put(p).putLong(Long.MAX_VALUE - tsMillis).putInt((int) crc.getValue()).array();
    }

    /** Decodes a qualifier written by {@link #qualifier}. */
    public static View decode(byte[] q, int off, int len) {
        int first = indexOf(q, off, off + len - SUFFIX, 0);
        int second = first < 0 ? -1 : indexOf(q, first + 1, off + len - SUFFIX, 0);
        if (second != off + len - SUFFIX - 1) {
            throw new IllegalArgumentException("not a view qualifier");
        }
        String adv = new String(q, off, first - off, StandardCharsets.UTF_8);
        String camp = new String(q, first + 1, second - first - 1, StandardCharsets.UTF_8);
        long ts = Long.MAX_VALUE - ByteBuffer.wrap(q, second + 1, 8).getLong();
        return new View(adv + "/" + camp, ts);
    }

    public static View decode(byte[] q) {
        return decode(q, 0, q.length);
    }

    private static int indexOf(byte[] b, int from, int to, int value) {
        for (int i = from; i < to; i++) {
            if (b[i] == value) {
                return i;
            }
        }
        return -1;
    }

    static boolean sameCampaign(byte[] a, byte[] b) {
        return Arrays.equals(a, 0, a.length - SUFFIX, b, 0, b.length - SUFFIX);
    }
}
