package io.adreport.schema.profile;

import io.adreport.schema.campaign.FrequencyCap;
import io.adreport.schema.cube.ProfileModel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.apache.hadoop.hbase.Cell;

/**
 * Layout of family {@code fc} of the profiles table: a device's view history, one cell per
 * impression it was shown.
 *
 * <pre>qualifier = advertiser 0x00 campaign 0x00 | (Long.MAX_VALUE - tsMillis) 8 bytes | crc32(eventId) 4 bytes
 * value     = empty;  cell timestamp = the impression's time</pre>
 *
 * <p><b>Why timestamps, not per-window counters.</b> Caps are rolling windows from 5 minutes to
 * 120 days and may change at any time; a timestamp per view answers any window exactly (a view at
 * {@code t} counts while {@code now - window < t}), counters per window cannot.
 *
 * <p><b>Bounded by time and by count.</b> By time: the family TTL is the longest window, on the
 * impression's time, so an old view expires by itself. By count: of each (device, campaign) only
 * the newest {@link #MAX_VIEWS_KEPT} views (K) are ever needed, and that is exact for every cap
 * the registry accepts, because K is the registry's own limit ({@link FrequencyCap#MAX_VIEWS}):
 * a cap's window holds every view stamped after {@code now - window}, an upper set in time
 * ({@link io.adreport.schema.campaign.CapWindow#contains}). If the window holds K or more views,
 * the newest K all lie in it (every view in it is newer than every view outside it), so the kept
 * count is K &ge; max and the cap denies, as it does on the full history; if it holds fewer than
 * K, they are the newest views of all and every one of them is kept, so the kept count is the
 * true count. Only the count a denial reports is affected:
 * it is at most K. Two places enforce the bound: the check counts at most the newest K views per
 * campaign while it decodes its one Get (a per-campaign limit in the filter measured 19–23% of
 * the Get's throughput, so the filter selects the campaigns and the decoder stops at K), and the
 * nightly pass deletes, for every device touched that day, the cells of a campaign beyond its
 * newest K ({@link CountBound}). Between two nightly passes a hot device may hold, and a check
 * of it ship, more cells than K; its checks stay exact meanwhile, and storage is bounded again
 * after the next pass.
 *
 * <p><b>Idempotent.</b> A replayed impression (same event id, same time) writes the same
 * qualifier, so it is never a second view. Newest first within a campaign: one Get with one
 * multi-prefix filter over the requested campaigns reads a device's history of 50 campaigns, and
 * the first K cells of a prefix are the newest K views.
 */
public final class ViewCells {
    /**
     * K: the most views of one campaign kept per device, and read per campaign by a check.
     * Derived from the registry's limit on a cap's {@code max} so that no accepted cap can exceed
     * what is kept (see the class comment for why keeping the newest K is then exact). After the
     * nightly pass, storage per device and campaign is at most K cells (52 bytes each on disk,
     * measured: 520 KB).
     */
    public static final int MAX_VIEWS_KEPT = FrequencyCap.MAX_VIEWS;

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

    /**
     * The count bound over one row's {@code fc} cells: fed them in stored order (by campaign, newest
     * first within it, as a Get or Scan returns them, whole or in pieces), one at a time, it answers
     * whether each lies beyond the newest {@code keep} of its campaign — what the nightly trim
     * deletes and a check does not count. One instance per row; not thread-safe.
     */
    public static final class CountBound {
        private final int keep;
        private Cell runStart;
        private int inRun;

        public CountBound(int keep) {
            if (keep < 1) {
                throw new IllegalArgumentException("keep: must be at least 1, not " + keep);
            }
            this.keep = keep;
        }

        public boolean beyond(Cell c) {
            if (runStart == null || !sameCampaign(runStart, c)) {
                runStart = c;
                inRun = 0;
            }
            return ++inRun > keep;
        }
    }

    private static boolean sameCampaign(Cell a, Cell b) {
        return Arrays.equals(a.getQualifierArray(), a.getQualifierOffset(), a.getQualifierOffset() + a.getQualifierLength() - SUFFIX,
                b.getQualifierArray(), b.getQualifierOffset(), b.getQualifierOffset() + b.getQualifierLength() - SUFFIX);
    }

    private static int indexOf(byte[] b, int from, int to, int value) {
        for (int i = from; i < to; i++) {
            if (b[i] == value) {
                return i;
            }
        }
        return -1;
    }
}
