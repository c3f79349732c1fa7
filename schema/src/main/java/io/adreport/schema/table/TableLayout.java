package io.adreport.schema.table;

import io.adreport.schema.cube.Cube;
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
 *       {@link io.adreport.schema.topn.RankedIndexCodec};</li>
 *   <li>{@code NS:meta} — day status, drift reports, aggregator heartbeats, API key hashes,
 *       family {@code m}, no TTL, one region.</li>
 * </ul>
 * Every family has a ROW Bloom filter (point gets: dedup checks, joins, report lookups) and
 * FAST_DIFF block encoding (keys share long prefixes). The {@code _v1} suffix is the frozen
 * row-key version of {@link RowKeyCodec}.
 */
public final class TableLayout {
    public static final byte[] RAW_FAMILY = Bytes.toBytes("e");
    public static final byte[] COUNTER_FAMILY = Bytes.toBytes("c");
    public static final byte[] META_FAMILY = Bytes.toBytes("m");
    public static final byte[] RANKED_FAMILY = Bytes.toBytes("t");
    public static final String KEY_VERSION = "v1";

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
        return out;
    }

    /** A table to create or verify and its split keys. */
    public record Spec(TableDescriptor descriptor, byte[][] splits) {
        public ColumnFamilyDescriptor family() {
            return descriptor.getColumnFamilies()[0];
        }

        public int regions() {
            return splits.length + 1;
        }
    }

    private static TableDescriptor descriptor(TableName name, byte[] family, int ttlDays) {
        ColumnFamilyDescriptorBuilder f = ColumnFamilyDescriptorBuilder.newBuilder(family)
                .setBloomFilterType(BloomType.ROW)
                .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
                .setMaxVersions(1)
                .setTimeToLive(ttlDays == 0 ? HConstants.FOREVER : (int) Math.min(Integer.MAX_VALUE, ttlDays * 86_400L));
        return TableDescriptorBuilder.newBuilder(name).setColumnFamily(f.build()).build();
    }
}
