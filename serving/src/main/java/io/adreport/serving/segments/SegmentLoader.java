package io.adreport.serving.segments;

import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.hbase.BulkHFiles;
import io.adreport.schema.event.DeviceId;
import io.adreport.schema.hbase.BulkStaging;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.Segments;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.table.TableLayout;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/adreport segments load FILE}: the nightly audience-segment refresh, written as
 * HFiles and handed to HBase ({@link BulkHFiles}), so it never competes with live writes
 * (no memstore, no WAL, no flushes: the region servers adopt finished files).
 *
 * <p><b>Input.</b> CSV lines {@code device,segment,score} (raw device id, segment id, a finite
 * number), an optional header line {@code device,segment,score}. The device id is hashed with the
 * cluster's secret on the way in; the raw id is never written. Unidentified ids (empty, all zero,
 * placeholders) are skipped and counted. A malformed line refuses the whole file, naming the line
 * and the field, before anything is loaded (a nightly refresh is all or nothing).
 *
 * <p><b>Staging.</b> The HFiles are written to a fresh directory on the cluster's file system
 * ({@link BulkStaging}), never to this host's disk: the region servers that adopt them may be on
 * other hosts. The directory is removed after the load, also when it fails.
 *
 * <p><b>Memory.</b> Cells are sorted in chunks of {@code chunkCells}; each sorted chunk becomes
 * one HFile (bulk load accepts many files per family and splits those that span regions), so
 * memory stays bounded by the chunk whatever the file's size. Cell timestamps are the load time:
 * the family's 30-day TTL counts from the last load that carried the segment.
 */
public final class SegmentLoader {
    private final Connection connection;
    private final TableLayout layout;
    private final DeviceHasher hasher;
    private final UnidentifiedDevices unidentified;
    private final Clock clock;
    private final int chunkCells;

    /** What a load did; {@code staging} is where its HFiles were written (removed since). */
    public record Summary(long lines, long cells, long skippedUnidentified, int files, String staging) {
    }

    /** A line that breaks a rule; nothing was loaded. */
    public static final class BadLine extends IOException {
        public BadLine(long line, String field, String rule) {
            super("line " + line + ": " + field + ": " + rule);
        }
    }

    public SegmentLoader(Connection connection, TableLayout layout, DeviceHasher hasher, UnidentifiedDevices unidentified,
                         Clock clock, int chunkCells) {
        this.connection = connection;
        this.layout = layout;
        this.hasher = hasher;
        this.unidentified = unidentified;
        this.clock = clock;
        this.chunkCells = chunkCells;
    }

    /** Loads {@code csv}, staging its HFiles on the cluster's file system. */
    public Summary load(Path csv) throws IOException {
        Configuration conf = connection.getConfiguration();
        org.apache.hadoop.fs.Path dir = BulkStaging.fresh(conf, "adreport-segments");
        ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
        long ts = clock.millis();
        List<KeyValue> chunk = new ArrayList<>();
        long lines = 0;
        long cells = 0;
        long skipped = 0;
        try (BulkHFiles files = new BulkHFiles(conf, connection, dir, null)) {
            try (BufferedReader in = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines++;
                    if (line.isBlank() || (lines == 1 && line.trim().equalsIgnoreCase("device,segment,score"))) {
                        continue;
                    }
                    String[] f = line.split(",", -1);
                    if (f.length != 3) {
                        throw new BadLine(lines, "line", "must be device,segment,score");
                    }
                    String device;
                    try {
                        device = DeviceId.normalize(f[0]);
                    } catch (IllegalArgumentException e) {
                        throw new BadLine(lines, "device", e.getMessage());
                    }
                    if (unidentified.isUnidentifiedRaw(device)) {
                        skipped++;
                        continue;
                    }
                    byte[] qualifier;
                    byte[] value;
                    try {
                        qualifier = Segments.qualifier(f[1].trim());
                    } catch (IllegalArgumentException e) {
                        throw new BadLine(lines, "segment", e.getMessage());
                    }
                    try {
                        value = Segments.value(Double.parseDouble(f[2].trim()));
                    } catch (IllegalArgumentException e) {
                        throw new BadLine(lines, "score", "must be a finite number");
                    }
                    chunk.add(new KeyValue(keys.row(hasher.hash(device)), TableLayout.SEGMENT_FAMILY, qualifier, ts, value));
                    cells++;
                    if (chunk.size() >= chunkCells) {
                        write(files, chunk);
                    }
                }
            }
            if (!chunk.isEmpty()) {
                write(files, chunk);
            }
            files.load();
            return new Summary(lines, cells, skipped, files.files(), dir.toString());
        }
    }

    /** One sorted chunk as one HFile (it may span regions: the load splits it). */
    private void write(BulkHFiles files, List<KeyValue> chunk) throws IOException {
        KeyValue[] sorted = chunk.toArray(KeyValue[]::new);
        Arrays.sort(sorted, CellComparatorImpl.COMPARATOR);
        files.newFile(layout.profilesTable(), TableLayout.SEGMENT_FAMILY);
        KeyValue previous = null;
        for (KeyValue kv : sorted) {
            // the same device and segment twice in one chunk: the later line wins (one cell per key)
            if (previous != null && CellComparatorImpl.COMPARATOR.compare(previous, kv) == 0) {
                continue;
            }
            files.append(kv);
            previous = kv;
        }
        chunk.clear();
    }
}
