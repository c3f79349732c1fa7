package io.adreport.schema.counting;

import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.rowkey.RowKeyCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The live-counts exchange between a reader of counters (the report API) and each running
 * aggregator: the one owner of its wire format and of its row selection.
 *
 * <p><b>Why.</b> An aggregator writes its counts to HBase once per flush, as its writer cells
 * ({@link CounterValues}): absolute running totals, one cell per (row, metric, writer). Between
 * flushes the counts of acknowledged events exist only in its memory. A reader that asks every
 * live aggregator for its current totals of the rows it reads can replace each live writer's
 * stored cell by that writer's current total, and so see every event acknowledged before the
 * question, whatever the flush interval (the real-time tail that Druid's and Pinot's real-time
 * nodes serve from memory, here without a second query engine: the totals are the same cells).
 *
 * <p><b>The protocol</b> (both steps are one {@code POST} of a {@link Request} to {@link #PATH}):
 * <ol>
 *   <li>before reading HBase, the reader knows each aggregator's writer id: from an earlier answer,
 *       or by asking for it alone (a request without ranges); it then keeps, of every row it reads,
 *       the stored cells of those writers;</li>
 *   <li>after reading, it asks with the ranges it read; the answer is the writer's current
 *       total of every metric of every matching row of an open day, and its writer id. If the id
 *       is not the one the reader used (the writer started over since), that answer is ignored:
 *       the stored cells alone are then used, which can lag but never double-count.</li>
 * </ol>
 * Since a writer's total only grows and every flush writes a total it held, its total at the
 * second step includes whatever its stored cell held at the read: replacing one by the other
 * counts each event once. An aggregator that does not answer in time is read from HBase alone.
 *
 * <p><b>Asking while reading</b> (a reader of exact keys, which can keep the rows it read until
 * the answers arrive). The second step may also go out at the same time as the HBase read, with
 * no first step: the answer names its writer, and the reader then takes that writer's stored
 * cells from the rows it kept. Replacing the stored cell by the answered total still counts each
 * event once, whatever the order (the stored cell is subtracted, the total added), with one
 * exception: a start-over between the answer and the read. The generation that flush writes,
 * under the new id, holds deltas the answer already counted. So each answer also names the id
 * its writer will take at its next start-over ({@code nextWriter}, drawn in advance); a reader
 * that finds a cell of that id in a row it read ignores the answer (reads that writer as stored).
 * A later start-over's cells hold only deltas counted after that flush drained the buffer, so
 * after the answer: the next id is the only one to look for.
 *
 * <p><b>Several ids per writer.</b> A start-over keeps the rows its writer touched most recently
 * under the ids they had, so a writer may write rows under its current id and under a few
 * retained ones ({@link Answer#retained}); each answered row names its id ({@link Row#writer}),
 * and a reader replaces that id's stored cell in that row. Every argument above holds per row and
 * id: a row's cell under one id is written by one writer, its total only grows, and a row that
 * is forgotten and comes back does so under the id the start-over drew ({@code nextWriter} until
 * then). The first step learns every id ({@link Answer#writers}), so that the read keeps the
 * stored cells of all of them.
 *
 * <p><b>Format</b> (big-endian, {@link DataOutputStream}): a request is the rollup name (UTF),
 * the prefix (length, bytes; -1: none), the range count and each range's start and stop (length,
 * bytes); an answer is the writer id (0: no live counts), the metric names (count, UTF each) and
 * the rows (count; each: key length, key bytes, one long per metric), then the next writer id
 * (an answer without it reads as 0), then the retained writer ids (count, longs) and, when there
 * are any, each row's writer id in row order (an answer without them: none retained, every row
 * under the current id). Stateless.
 */
public final class LiveCounts {
    /** The aggregator's route. It serves every tenant's counts: an internal port, like HBase's. */
    public static final String PATH = "/internal/live-counters";
    /** Content type of both bodies. */
    public static final String CONTENT_TYPE = "application/octet-stream";

    private LiveCounts() {
    }

    /**
     * Which rows of one rollup's counter table are wanted: those in any of {@code ranges} whose
     * key holds {@code prefix} (nullable) at {@link RowKeyCodec#COUNTER_VALUES_OFFSET}, as the
     * report's server-side row filter selects them. No ranges: only the writer id is wanted.
     */
    public record Request(String rollup, List<KeyRange> ranges, byte[] prefix) {
        public Request {
            ranges = List.copyOf(ranges);
            prefix = prefix == null ? null : prefix.clone();
        }

        /** The first step's question: the writer id only. */
        public static Request writerOnly(String rollup) {
            return new Request(rollup, List.of(), null);
        }

        /** True when {@code row} is in one of the ranges and holds the prefix. */
        public boolean wants(byte[] row) {
            return selection().wants(row);
        }

        /** The rows wanted, prepared for testing many rows (one per answer). */
        public Selection selection() {
            return new Selection(ranges, prefix);
        }
    }

    /**
     * A {@link Request}'s rows, ready to test many rows against: its ranges sorted and merged, so
     * that a row is tested by one binary search whatever the number of ranges (a fixed series
     * asks for one single-row range per time bucket); and, when every range is a single row
     * (stop = start + one zero byte, as a report's exact keys are sent), those rows, so that an
     * answer can look them up instead of passing over every row it holds.
     */
    public static final class Selection {
        private final byte[] prefix;
        private final byte[][] starts;
        private final byte[][] stops;
        private final List<byte[]> points;

        private Selection(List<KeyRange> ranges, byte[] prefix) {
            this.prefix = prefix;
            List<byte[][]> sorted = new ArrayList<>(ranges.size());
            boolean allPoints = true;
            for (KeyRange r : ranges) {
                byte[] start = r.start();
                byte[] stop = r.stop();
                allPoints &= stop.length == start.length + 1 && stop[start.length] == 0
                        && Arrays.equals(stop, 0, start.length, start, 0, start.length);
                if (Arrays.compareUnsigned(start, stop) < 0) {
                    sorted.add(new byte[][] {start, stop});
                }
            }
            sorted.sort((a, b) -> Arrays.compareUnsigned(a[0], b[0]));
            List<byte[][]> merged = new ArrayList<>(sorted.size());
            for (byte[][] r : sorted) {
                byte[][] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
                if (last != null && Arrays.compareUnsigned(r[0], last[1]) <= 0) {
                    if (Arrays.compareUnsigned(r[1], last[1]) > 0) {
                        last[1] = r[1];
                    }
                } else {
                    merged.add(r);
                }
            }
            this.starts = merged.stream().map(r -> r[0]).toArray(byte[][]::new);
            this.stops = merged.stream().map(r -> r[1]).toArray(byte[][]::new);
            this.points = allPoints ? merged.stream().map(r -> r[0]).filter(this::holdsPrefix).toList() : null;
        }

        /** True when {@code row} is in one of the ranges and holds the prefix. */
        public boolean wants(byte[] row) {
            if (!holdsPrefix(row)) {
                return false;
            }
            int lo = 0;
            int hi = starts.length - 1;
            int at = -1; // the last range starting at or before row
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (Arrays.compareUnsigned(starts[mid], row) <= 0) {
                    at = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return at >= 0 && Arrays.compareUnsigned(row, stops[at]) < 0;
        }

        /** The wanted rows when every range is a single row (and holds the prefix), else null. */
        public List<byte[]> points() {
            return points;
        }

        private boolean holdsPrefix(byte[] row) {
            return prefix == null || row.length >= RowKeyCodec.COUNTER_VALUES_OFFSET + prefix.length
                    && Arrays.equals(row, RowKeyCodec.COUNTER_VALUES_OFFSET, RowKeyCodec.COUNTER_VALUES_OFFSET + prefix.length,
                    prefix, 0, prefix.length);
        }
    }

    /**
     * One row's current totals, one per metric of the answer, and the writer id its cells are
     * written under ({@code writer}; 0: the answer's current writer).
     */
    public record Row(byte[] key, long[] totals, long writer) {
        public Row(byte[] key, long[] totals) {
            this(key, totals, 0);
        }
    }

    /**
     * An aggregator's answer: its current writer id (0: it keeps no live counts), its rows, the id
     * it will write under if it starts over next ({@code nextWriter}, drawn in advance; 0: not
     * told), which lets a reader that asked while it read HBase see whether a start-over raced its
     * read, and the other ids it still writes rows under ({@code retained}: rows kept across a
     * start-over keep their id; each row names its own).
     */
    public record Answer(long writer, List<String> metrics, List<Row> rows, long nextWriter, long[] retained) {
        public static final Answer NONE = new Answer(0, List.of(), List.of());

        public Answer {
            metrics = List.copyOf(metrics);
            rows = List.copyOf(rows);
            retained = retained == null ? new long[0] : retained.clone();
        }

        public Answer(long writer, List<String> metrics, List<Row> rows, long nextWriter) {
            this(writer, metrics, rows, nextWriter, null);
        }

        public Answer(long writer, List<String> metrics, List<Row> rows) {
            this(writer, metrics, rows, 0);
        }

        /** The writer id of {@code row}'s cells. */
        public long writerOf(Row row) {
            return row.writer() == 0 ? writer : row.writer();
        }

        /** Every id this writer writes rows under: the current one first, then the retained ones. */
        public long[] writers() {
            long[] all = new long[1 + retained.length];
            all[0] = writer;
            System.arraycopy(retained, 0, all, 1, retained.length);
            return all;
        }
    }

    public static byte[] encode(Request r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(r.rollup());
            writeBytes(out, r.prefix());
            out.writeInt(r.ranges().size());
            for (KeyRange k : r.ranges()) {
                writeBytes(out, k.start());
                writeBytes(out, k.stop());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalArgumentException naming what is malformed */
    public static Request decodeRequest(byte[] body) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            String rollup = in.readUTF();
            byte[] prefix = readBytes(in);
            int n = count(in, body.length);
            List<KeyRange> ranges = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                ranges.add(new KeyRange(required(readBytes(in)), required(readBytes(in))));
            }
            return new Request(rollup, ranges, prefix);
        } catch (IOException e) {
            throw new IllegalArgumentException("body: not a live-counts request (" + e + ")");
        }
    }

    public static byte[] encode(Answer a) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + a.rows().size() * (48 + 8 * a.metrics().size()));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(a.writer());
            out.writeInt(a.metrics().size());
            for (String m : a.metrics()) {
                out.writeUTF(m);
            }
            out.writeInt(a.rows().size());
            for (Row row : a.rows()) {
                writeBytes(out, row.key());
                for (int i = 0; i < a.metrics().size(); i++) {
                    out.writeLong(row.totals()[i]);
                }
            }
            out.writeLong(a.nextWriter());
            out.writeInt(a.retained().length);
            for (long id : a.retained()) {
                out.writeLong(id);
            }
            if (a.retained().length > 0) {
                for (Row row : a.rows()) {
                    out.writeLong(a.writerOf(row));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalArgumentException when the body is not an answer */
    public static Answer decodeAnswer(byte[] body) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            long writer = in.readLong();
            int m = count(in, body.length);
            List<String> metrics = new ArrayList<>(m);
            for (int i = 0; i < m; i++) {
                metrics.add(in.readUTF());
            }
            int n = count(in, body.length);
            List<Row> rows = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] key = required(readBytes(in));
                long[] totals = new long[m];
                for (int c = 0; c < m; c++) {
                    totals[c] = in.readLong();
                }
                rows.add(new Row(key, totals));
            }
            long next = in.available() >= Long.BYTES ? in.readLong() : 0; // absent from older aggregators' answers
            long[] retained = new long[in.available() >= Integer.BYTES ? count(in, body.length) : 0]; // likewise
            for (int i = 0; i < retained.length; i++) {
                retained[i] = in.readLong();
            }
            if (retained.length > 0) {
                for (int i = 0; i < n; i++) {
                    Row r = rows.get(i);
                    rows.set(i, new Row(r.key(), r.totals(), in.readLong()));
                }
            }
            return new Answer(writer, metrics, rows, next, retained);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a live-counts answer (" + e + ")");
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        if (b == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(b.length);
            out.write(b);
        }
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        if (n > in.available()) {
            throw new IOException("a length of " + n + " runs past the body");
        }
        return in.readNBytes(n);
    }

    private static byte[] required(byte[] b) throws IOException {
        if (b == null) {
            throw new IOException("a key is missing");
        }
        return b;
    }

    private static int count(DataInputStream in, int bodyLength) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > bodyLength) {
            throw new IOException("a count of " + n + " does not fit the body");
        }
        return n;
    }
}
