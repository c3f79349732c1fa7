package io.adreport.reconcile.job;

import io.adreport.reconcile.ReconcileConfig;
import io.adreport.reconcile.topn.RankedIndexWriter;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.hbase.Batches;
import io.adreport.schema.hbase.BulkHFiles;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

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
 * <p><b>Writes, by one of two paths chosen per task by its number of entries</b>
 * ({@link ReconcileConfig#INDEX_BULK_MIN_ENTRIES} = N, as the corrections choose theirs). The
 * task holds its first N entries. If it ends with fewer, they go as Puts by {@code Table.batch} of
 * {@link #BATCH} on the task's connection (not the job's output format: its
 * {@code BufferedMutator}, once its buffer was full, walked its whole queue on every Put). When
 * the N-th arrives, the held entries are sorted and written as an HFile ({@link BulkHFiles}; the
 * index table is one region until it grows, and a file that spans regions is split by the load),
 * and so is every later run of N; {@link #finish}
 * writes the last run and bulk-loads the task's files. A first generation of a 1M-event day is
 * ~1.4M entries: through the MemStore and WAL they cost the region server the skip-list inserts,
 * the synced WAL and a flush beside the recount's scans; as files it adopts them. Memory is
 * bounded by one run. The cells' timestamp is the task's start on HBase's clock, after the
 * reconciler swept the generation's leftovers (their delete markers are older), and the load
 * assigns sequence ids, so a loaded entry is newer than anything the region held. Either way
 * {@link #finish} returns only when every entry is stored, so a task that succeeded has written
 * them all; a retried task writes the same rows again.
 *
 * <p><b>Digests.</b> Beside the entries, the task sums each rollup's content digest
 * ({@link RankedIndexCodec#entryDigest}) into the job counter {@link #DIGEST_GROUP}/rollup name;
 * the job's total is the new generation's digest, published with it. When the day is settled
 * (nothing stored for it since its last pass) and every indexed rollup of it already has a
 * published generation with a digest, the submitter sets
 * {@link #DIGEST_ONLY}: the tasks then write nothing and only sum, and the submitter writes a new
 * generation (by a scan, {@link RankedIndexWriter#rewrite}) only for the rollups whose digest
 * changed. A re-run in which nothing differs thus writes and deletes no index entry at all.
 *
 * <p>One task thread owns it.
 */
final class DayIndexRows {
    /** {@code rollup=generation,...}: the generations to write; absent means no index entries. */
    static final String GENERATIONS = "adreport.reconcile.index.generations";
    /** {@code true}: sum the digests of the generations named by {@link #GENERATIONS}, write no entry. */
    static final String DIGEST_ONLY = "adreport.reconcile.index.digest-only";
    /** Counter group of the digests, one counter per indexed rollup (its name). */
    static final String DIGEST_GROUP = "adreport.index.digest";
    static final int BATCH = 2_000;

    private final long[] generation; // by rollup index; 0: not indexed
    private final Rollup[] rollups;
    private final LocalDate day;
    private final RowKeyCodec codec;
    private final List<String> metrics;
    private final long[] values;
    private final long[] digest; // by rollup index
    private final boolean digestOnly;
    private final Connection connection;
    private final TableName tableName;
    private final Table table; // null when digest only
    private final int bulkMinEntries; // -1: never; 0: always
    private final Bulk bulk; // how to stage files, null when digest only
    private final Configuration conf; // the job's, for the files
    private final List<Entry> held = new ArrayList<>();
    private BulkHFiles files; // non-null once the task switched to HFiles
    private long entries;

    /** One entry cell as {@link RankedIndexWriter#dayRows} built it, held while the task decides its path or fills a run. */
    private record Entry(byte[] row, byte[] qualifier, byte[] value) {
    }

    /** Where and as whom a task stages its index HFiles, and the timestamp of their cells. */
    record Bulk(Path dir, String task, long timestamp) {
    }

    private DayIndexRows(Configuration conf, TableLayout layout, LocalDate day, long[] generation, boolean digestOnly,
                         Connection connection, int bulkMinEntries, Bulk bulk) throws IOException {
        this.conf = conf;
        this.generation = generation;
        this.digest = new long[generation.length];
        this.digestOnly = digestOnly;
        this.rollups = layout.cube().rollups().toArray(Rollup[]::new);
        this.day = day;
        this.codec = new RowKeyCodec(layout.cube());
        this.metrics = layout.cube().metrics().stream().map(Metric::name).toList();
        this.values = new long[metrics.size()];
        this.connection = connection;
        this.tableName = layout.rankedIndexTable();
        this.table = digestOnly ? null : connection.getTable(tableName);
        this.bulkMinEntries = bulkMinEntries;
        this.bulk = digestOnly ? null : bulk;
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

    /**
     * The task's index writer over {@code connection}, or null when the job configuration names
     * no generations; {@code bulkMinEntries} and {@code bulk} choose and stage the HFile path.
     */
    static DayIndexRows from(Configuration conf, TableLayout layout, LocalDate day, Connection connection, int bulkMinEntries,
                             Bulk bulk) throws IOException {
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
        return new DayIndexRows(conf, layout, day, generation, conf.getBoolean(DIGEST_ONLY, false), connection, bulkMinEntries, bulk);
    }

    /** Whether the shuffle key {@code k} (at {@code off}) is a DAY row of an indexed rollup. */
    boolean lists(int rollup, byte[] k, int off) {
        return generation[rollup] > 0 && (k[off + 2] & 0xFF) == Granularity.DAY.code();
    }

    /** Writes the entries of one DAY counter row whose cells will hold {@code row}'s expected values. */
    void write(int rollup, byte[] counterRow, RowCells row) throws IOException {
        for (int c = 0; c < values.length; c++) {
            values[c] = row.expected(c);
        }
        List<String> series = codec.parseCounterKey(counterRow).values();
        entries += RankedIndexWriter.dayRows(rollups[rollup], day, generation[rollup], metrics, series, values, (r, q, v) -> {
            digest[rollup] += RankedIndexCodec.entryDigest(r, v);
            if (digestOnly) {
                return;
            }
            held.add(new Entry(r, q, v));
            if (BulkHFiles.reached(bulkMinEntries, held.size())) {
                writeRun();
            }
        });
    }

    /**
     * Stores what is held — as Puts, or as the last run of HFiles followed by the task's bulk load —
     * releases the table and hands each indexed rollup's digest to {@code counters} (rollup name,
     * this task's part); the task calls it once, before it ends.
     */
    void finish(BiConsumer<String, Long> counters) throws IOException {
        if (table != null) {
            try {
                if (files != null) {
                    writeRun();
                    files.load();
                } else {
                    sendPuts();
                }
            } finally {
                try {
                    table.close();
                } finally {
                    if (files != null) {
                        files.close(); // after a load only empty directories are left; after a failure, unloaded files
                    }
                }
            }
        }
        for (int i = 0; i < rollups.length; i++) {
            if (generation[i] > 0) {
                counters.accept(rollups[i].name(), digest[i]);
            }
        }
    }

    /** The held entries as Puts, by {@code Table.batch} of {@link #BATCH}. */
    private void sendPuts() throws IOException {
        List<Put> batch = new ArrayList<>(Math.min(BATCH, held.size()));
        for (Entry e : held) {
            batch.add(new Put(e.row()).addColumn(TableLayout.RANKED_FAMILY, e.qualifier(), e.value()));
            if (batch.size() >= BATCH) {
                Batches.send(table, batch, "the ranked index");
            }
        }
        Batches.send(table, batch, "the ranked index");
        held.clear();
    }

    /** Sorts the held entries into one new HFile (should it span regions, the load splits it). */
    private void writeRun() throws IOException {
        if (held.isEmpty()) {
            return;
        }
        if (files == null) {
            files = new BulkHFiles(conf, connection, bulk.dir(), bulk.task()); // a previous attempt's directory is deleted
        }
        held.sort(Comparator.comparing(Entry::row, Bytes.BYTES_COMPARATOR)); // one cell per entry row
        files.newFile(tableName, TableLayout.RANKED_FAMILY);
        for (Entry e : held) {
            files.append(new KeyValue(e.row(), TableLayout.RANKED_FAMILY, e.qualifier(), bulk.timestamp(), KeyValue.Type.Put, e.value()));
        }
        held.clear();
    }

    /** Of the entries written, those bulk-loaded as HFiles. */
    long bulkLoaded() {
        return files == null ? 0 : entries;
    }

    /** Entries written (none when digest only). */
    long written() {
        return digestOnly ? 0 : entries;
    }
}
