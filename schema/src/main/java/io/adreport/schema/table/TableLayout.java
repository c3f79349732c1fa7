package io.adreport.schema.table;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The tables a cube needs, by name and shape. One owner for table names and families:
 * <ul>
 *   <li>{@code NS:events_v1} — raw events, family {@code e}, TTL = cube.rawTtlDays, pre-split
 *       on rawSaltBuckets;</li>
 *   <li>{@code NS:r_<rollup>_v1} — one counter table per rollup, family {@code c} (one column
 *       per metric, 8-byte longs), TTL = rollup.ttlDays, pre-split on saltBuckets;</li>
 *   <li>{@code NS:topn_v1} — the ranked top-N index of reconciled days, family {@code t}, no TTL
 *       (a writer deletes superseded generations), one region; keys by
 *       {@code schema.topn.RankedIndexCodec};</li>
 *   <li>{@code NS:meta} — day status, drift reports, aggregator heartbeats, API key hashes,
 *       family {@code m}, no TTL, one region;</li>
 *   <li>only for cubes with device profiles ({@code schema.cube.ProfileModel}):
 *       {@code NS:profiles_v1} — one row per device ({@code schema.profile.ProfileKey}): family
 *       {@code seg} (audience segments, TTL {@value #SEGMENT_TTL_DAYS} days) and family {@code fc}
 *       (view history for frequency caps, TTL {@value #VIEW_TTL_DAYS} days, the longest cap window)
 *       and family {@code ev} (the device's reverse index: one cell per raw event that carries the
 *       device, qualifier = the raw row key, {@code schema.profile.EventIndexCells}; TTL =
 *       cube.rawTtlDays like the rows it points to), pre-split on the profile salt;</li>
 *   <li>{@code NS:privacy} — privacy deletion requests and their steps, family {@code p},
 *       {@code schema.privacy.DeletionStore}, no TTL, one region;</li>
 *   <li>{@code NS:campaigns} — the registry: campaigns (family {@code c},
 *       {@code schema.campaign.CampaignStore}) and zone inventories (family {@code z},
 *       {@code schema.inventory.ZoneStore}), no TTL, one region;</li>
 *   <li>{@code NS:spend_v1} — live campaign spend, sharded per aggregator (family {@code s},
 *       {@code schema.spend.SpendRows}), TTL = cube.rawTtlDays, one region.</li>
 * </ul>
 * Every family has a ROW Bloom filter (point gets: dedup checks, joins, report lookups) and
 * FAST_DIFF block encoding (keys share long prefixes). The {@code _v1} suffix is the frozen
 * row-key version of {@link RowKeyCodec}.
 */
public final class TableLayout {
    public static final byte[] RAW_FAMILY = Bytes.toBytes("e");
    public static final byte[] COUNTER_FAMILY = Bytes.toBytes("c");
    public static final byte[] META_FAMILY = Bytes.toBytes("m");
    public static final byte[] SEGMENT_FAMILY = Bytes.toBytes("seg");
    public static final byte[] VIEW_FAMILY = Bytes.toBytes("fc");
    public static final byte[] CAMPAIGN_FAMILY = Bytes.toBytes("c");
    public static final byte[] ZONE_FAMILY = Bytes.toBytes("z");
    public static final byte[] RANKED_FAMILY = Bytes.toBytes("t");
    public static final byte[] EVENT_INDEX_FAMILY = Bytes.toBytes("ev");
    public static final byte[] PRIVACY_FAMILY = Bytes.toBytes("p");
    public static final byte[] SPEND_FAMILY = Bytes.toBytes("s");
    public static final String KEY_VERSION = "v1";
    /** How long an audience segment lives without a reload: the TTL of family {@code seg}. */
    public static final int SEGMENT_TTL_DAYS = 30;
    /** How long a view is kept: the TTL of family {@code fc}, and so the longest frequency-cap window. */
    public static final int VIEW_TTL_DAYS = 120;

    private final Cube cube;
    private final String namespace;

    public TableLayout(Cube cube, String namespace) {
        this.cube = cube;
        this.namespace = namespace;
    }

    public Cube cube() {
        return cube;
    }

    public String namespace() {
        return namespace;
    }

    public TableName rawTable() {
        return TableName.valueOf(namespace, "events_" + KEY_VERSION);
    }

    public TableName metaTable() {
        return TableName.valueOf(namespace, "meta");
    }

    public TableName profilesTable() {
        return TableName.valueOf(namespace, "profiles_" + KEY_VERSION);
    }

    public TableName privacyTable() {
        return TableName.valueOf(namespace, "privacy");
    }

    public TableName campaignsTable() {
        return TableName.valueOf(namespace, "campaigns");
    }

    public TableName spendTable() {
        return TableName.valueOf(namespace, "spend_" + KEY_VERSION);
    }

    public TableName rankedIndexTable() {
        return TableName.valueOf(namespace, "topn_" + KEY_VERSION);
    }

    public TableName counterTable(Rollup rollup) {
        return TableName.valueOf(namespace, "r_" + rollup.name() + "_" + KEY_VERSION);
    }

    public TableName counterTable(String rollup) {
        return counterTable(cube.rollup(rollup).orElseThrow(() -> new IllegalArgumentException("unknown rollup " + rollup)));
    }

    /** Every table of the cube with its split points (empty for none). */
    public List<Spec> specs() {
        List<Spec> out = new ArrayList<>();
        out.add(new Spec(descriptor(rawTable(), RAW_FAMILY, cube.rawTtlDays()), RowKeyCodec.splitKeys(cube.rawSaltBuckets())));
        for (Rollup r : cube.rollups()) {
            out.add(new Spec(descriptor(counterTable(r), COUNTER_FAMILY, r.ttlDays()), RowKeyCodec.splitKeys(cube.saltBuckets())));
        }
        out.add(new Spec(descriptor(rankedIndexTable(), RANKED_FAMILY, 0), new byte[0][]));
        out.add(new Spec(descriptor(metaTable(), META_FAMILY, 0), new byte[0][]));
        if (ProfileModel.supported(cube)) {
            out.add(new Spec(TableDescriptorBuilder.newBuilder(profilesTable())
                    .setColumnFamily(family(SEGMENT_FAMILY, SEGMENT_TTL_DAYS * 86_400L))
                    .setColumnFamily(family(VIEW_FAMILY, VIEW_TTL_DAYS * 86_400L))
                    .setColumnFamily(family(EVENT_INDEX_FAMILY, cube.rawTtlDays() * 86_400L))
                    .build(), RowKeyCodec.splitKeys(cube.saltBuckets())));
            out.add(new Spec(descriptor(privacyTable(), PRIVACY_FAMILY, 0), new byte[0][]));
            out.add(new Spec(TableDescriptorBuilder.newBuilder(campaignsTable())
                    .setColumnFamily(family(CAMPAIGN_FAMILY, 0)).setColumnFamily(family(ZONE_FAMILY, 0)).build(), new byte[0][]));
            out.add(new Spec(descriptor(spendTable(), SPEND_FAMILY, cube.rawTtlDays()), new byte[0][]));
        }
        return out;
    }

    /** A table to create or verify and its split keys. */
    public record Spec(TableDescriptor descriptor, byte[][] splits) {
        public List<ColumnFamilyDescriptor> families() {
            return List.of(descriptor.getColumnFamilies());
        }

        public int regions() {
            return splits.length + 1;
        }
    }

    private static TableDescriptor descriptor(TableName name, byte[] family, int ttlDays) {
        return TableDescriptorBuilder.newBuilder(name).setColumnFamily(family(family, ttlDays * 86_400L)).build();
    }

    private static ColumnFamilyDescriptor family(byte[] family, long ttlSeconds) {
        return ColumnFamilyDescriptorBuilder.newBuilder(family)
                .setBloomFilterType(BloomType.ROW)
                .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
                .setMaxVersions(1)
                .setTimeToLive(ttlSeconds == 0 ? HConstants.FOREVER : (int) Math.min(Integer.MAX_VALUE, ttlSeconds))
                .build();
    }
}
