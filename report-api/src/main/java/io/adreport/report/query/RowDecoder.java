package io.adreport.report.query;

import io.adreport.schema.counting.CounterValues;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.CounterKey;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.BinaryComponentComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * How the counter rows of one report are selected and decoded, shared by the summing reader
 * ({@link CounterReader}) and the streaming one ({@link ExportReader}) so that both confine a
 * read to the same rows.
 *
 * <p>Leading fixed dimensions (always the tenant for a tenant key) become a server-side
 * {@link RowFilter} with a {@link BinaryComponentComparator} at
 * {@link RowKeyCodec#COUNTER_VALUES_OFFSET}, so other tenants' rows never leave the region
 * server; the remaining filters are checked here by {@link #matches}. Immutable, so the read
 * tasks of one report share it.
 */
final class RowDecoder {
    private final RowKeyCodec codec;
    private final byte[][] qualifiers;
    private final int[] groupPositions;
    private final int[] filterPositions;
    private final String[] filterValues;
    private final byte[] fixedPrefix;
    private final int leadingFixed;

    RowDecoder(RowKeyCodec codec, ReportQuery q, QueryPlan plan) {
        this.codec = codec;
        this.qualifiers = plan.columns().stream().map(Bytes::toBytes).toArray(byte[][]::new);
        Rollup r = q.rollup();
        this.groupPositions = q.groupBy().stream().mapToInt(r.dimensions()::indexOf).toArray();
        ByteArrayOutputStream prefix = new ByteArrayOutputStream();
        int lead = 0;
        while (lead < r.dimensions().size() && q.filters().containsKey(r.dimensions().get(lead))) {
            prefix.writeBytes(RowKeyCodec.terminatedValue(q.filters().get(r.dimensions().get(lead))));
            lead++;
        }
        this.leadingFixed = lead;
        this.fixedPrefix = lead == 0 ? null : prefix.toByteArray();
        List<Integer> positions = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = lead; i < r.dimensions().size(); i++) {
            String v = q.filters().get(r.dimensions().get(i));
            if (v != null) {
                positions.add(i);
                values.add(v);
            }
        }
        this.filterPositions = positions.stream().mapToInt(Integer::intValue).toArray();
        this.filterValues = values.toArray(String[]::new);
    }

    int width() {
        return qualifiers.length;
    }

    /** Adds the columns read and the server-side tenant / leading-filter match to {@code scan}. */
    Scan confine(Scan scan) {
        scan.addFamily(TableLayout.COUNTER_FAMILY); // a metric's value is its base cell plus its writer cells (CounterValues)
        if (fixedPrefix != null) {
            scan.setFilter(new RowFilter(CompareOperator.EQUAL,
                    new BinaryComponentComparator(fixedPrefix, RowKeyCodec.COUNTER_VALUES_OFFSET)));
        }
        return scan;
    }

    CounterKey parse(byte[] row) {
        return codec.parseCounterKey(row);
    }

    /** True when the values pass the filters that the region server did not check. */
    boolean matches(List<String> values) {
        for (int i = 0; i < filterPositions.length; i++) {
            if (!values.get(filterPositions[i]).equals(filterValues[i])) {
                return false;
            }
        }
        return true;
    }

    /** The groupBy values of a row's dimension values, in groupBy order. */
    String[] group(List<String> values) {
        String[] group = new String[groupPositions.length];
        for (int i = 0; i < group.length; i++) {
            group[i] = values.get(groupPositions[i]);
        }
        return group;
    }

    /** Adds the row's counters to {@code sum} (a missing or malformed cell counts 0). */
    void addTo(long[] sum, Result r) {
        CounterValues.addTo(r, qualifiers, sum);
    }

    /** Adds the row's cells of writer {@code writer} alone to {@code sum}; true when it has one. */
    boolean addWriterTo(long[] sum, Result r, long writer) {
        return CounterValues.addWriterTo(r, qualifiers, writer, sum);
    }

    /** The leading fixed dimensions' encoded values (the server-side row filter), or null. */
    byte[] fixedPrefix() {
        return fixedPrefix == null ? null : fixedPrefix.clone();
    }

    /**
     * True when, in row-key order (time, then every dimension value in rollup order), the rows of
     * one group are adjacent: every dimension before the last groupBy dimension is grouped by or
     * fixed by a filter. Then a group is complete as soon as a merged scan has passed it.
     */
    boolean groupsAreContiguous(Rollup r) {
        int last = -1;
        for (int p : groupPositions) {
            last = Math.max(last, p);
        }
        for (int i = 0; i < last; i++) {
            int pos = i;
            boolean grouped = Arrays.stream(groupPositions).anyMatch(g -> g == pos);
            boolean fixed = i < leadingFixed || Arrays.stream(filterPositions).anyMatch(f -> f == pos);
            if (!grouped && !fixed) {
                return false;
            }
        }
        return true;
    }

    /** Positions in the groupBy list, ordered by their dimension's position in the rollup. */
    int[] groupIndexesInRollupOrder() {
        Integer[] idx = new Integer[groupPositions.length];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> Integer.compare(groupPositions[a], groupPositions[b]));
        return Arrays.stream(idx).mapToInt(Integer::intValue).toArray();
    }
}
