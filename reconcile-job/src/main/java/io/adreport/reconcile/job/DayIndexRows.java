package io.adreport.reconcile.job;

import io.adreport.reconcile.topn.RankedIndexWriter;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;

/**
 * A reduce task's share of day D's ranked top-N index: the list entries of each DAY counter row
 * of an indexed rollup ({@link RankedIndexWriter#indexes}), built by
 * {@link RankedIndexWriter#dayRows} — the one row builder — from the row's expected values, and
 * written as Puts to the index table beside the task's corrections.
 *
 * <p>Why from the expected values: once the task's corrections are written, every metric cell of
 * the row holds its expected value (a stale cell is deleted: 0), which is what the index writer
 * used to scan back from the counter table after the job. The entries go to generation g+1 of
 * each rollup, named in the job configuration by the submitter ({@link #GENERATIONS}), which
 * publishes it after the job succeeds ({@link RankedIndexWriter#publish}): until then readers see
 * generation g, whole. A failed or retried task writes the same entries again (same keys).
 *
 * <p>One task thread owns it.
 */
final class DayIndexRows {
    /** {@code rollup=generation,...}: the generations to write; absent means no index entries. */
    static final String GENERATIONS = "adreport.reconcile.index.generations";

    private final long[] generation; // by rollup index; 0: not indexed
    private final Rollup[] rollups;
    private final LocalDate day;
    private final RowKeyCodec codec;
    private final List<String> metrics;
    private final long[] values;
    private final ImmutableBytesWritable table;
    private long entries;

    private DayIndexRows(TableLayout layout, LocalDate day, long[] generation) {
        this.generation = generation;
        this.rollups = layout.cube().rollups().toArray(Rollup[]::new);
        this.day = day;
        this.codec = new RowKeyCodec(layout.cube());
        this.metrics = layout.cube().metrics().stream().map(Metric::name).toList();
        this.values = new long[metrics.size()];
        this.table = new ImmutableBytesWritable(layout.rankedIndexTable().getName());
    }

    /** The settings entry naming {@code generations} (rollup name to generation). */
    static String encode(Map<String, Long> generations) {
        StringBuilder b = new StringBuilder();
        generations.forEach((r, g) -> b.append(b.length() == 0 ? "" : ",").append(r).append('=').append(g));
        return b.toString();
    }

    static Map<String, Long> decode(String text) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String part : text.split(",")) {
            if (!part.isBlank()) {
                int eq = part.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalStateException(GENERATIONS + ": expected rollup=generation, not '" + part + "'");
                }
                out.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
            }
        }
        return out;
    }

    /** The task's index writer, or null when the job configuration names no generations. */
    static DayIndexRows from(Configuration conf, TableLayout layout, LocalDate day) {
        String text = conf.get(GENERATIONS);
        if (text == null) {
            return null;
        }
        Map<String, Long> byName = decode(text);
        List<Rollup> rollups = layout.cube().rollups();
        long[] generation = new long[rollups.size()];
        for (int i = 0; i < generation.length; i++) {
            Long g = byName.get(rollups.get(i).name());
            if (g != null && RankedIndexWriter.indexes(rollups.get(i))) {
                generation[i] = g;
            }
        }
        return new DayIndexRows(layout, day, generation);
    }

    /** Whether the shuffle key {@code k} (at {@code off}) is a DAY row of an indexed rollup. */
    boolean lists(int rollup, byte[] k, int off) {
        return generation[rollup] > 0 && (k[off + 2] & 0xFF) == Granularity.DAY.code();
    }

    /** Writes the entries of one DAY counter row whose cells will hold {@code row}'s expected values. */
    void write(int rollup, byte[] counterRow, RowCells row, TaskInputOutputContext<?, ?, ImmutableBytesWritable, Mutation> ctx)
            throws IOException {
        for (int c = 0; c < values.length; c++) {
            values[c] = row.expected(c);
        }
        List<String> series = codec.parseCounterKey(counterRow).values();
        entries += RankedIndexWriter.dayRows(rollups[rollup], day, generation[rollup], metrics, series, values, (r, q, v) -> {
            try {
                ctx.write(table, new Put(r).addColumn(TableLayout.RANKED_FAMILY, q, v));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while writing the ranked index", e);
            }
        });
    }

    long entries() {
        return entries;
    }
}
