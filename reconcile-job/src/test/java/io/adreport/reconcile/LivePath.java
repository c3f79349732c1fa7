package io.adreport.reconcile;

import io.adreport.reconcile.Recount.Cell;
import io.adreport.reconcile.Recount.Ev;
import io.adreport.schema.counting.WriterCells;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell.Type;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Simulates the live path with the schema classes — raw row first, then the cells the oracle
 * gives for the attribution known at that moment, written as one of the aggregator's two modes
 * writes them: coalesced ({@code writerCells}: one writer's running totals, a Put of each touched
 * row's writer cells, {@link WriterCells}) or naive (Increments of the base cells, which the
 * correction tests read back cell by cell) — and lets a test damage it.
 * Thread-safe enough for one writer thread besides the job.
 */
final class LivePath {
    private final Connection connection;
    private final TableLayout layout;
    private final Recount oracle;
    private final RawEventCodec codec;
    private final RowKeyCodec keys;
    private final List<Ev> stored = new ArrayList<>();
    private final Map<String, Ev> impressions = new HashMap<>();
    private final List<Put> pendingRaw = new ArrayList<>();
    private final Map<Cell, Long> pendingCells = new HashMap<>();
    private final long writer = new java.util.SplittableRandom().nextLong();
    private final Map<Cell, Long> totals = new HashMap<>();
    private long lastTimestamp;

    private final boolean writerCells;

    /** Counters written as the naive mode writes them (Increments of the base cells). */
    LivePath(Connection connection, TableLayout layout) {
        this(connection, layout, false);
    }

    /** {@code writerCells}: counters written as the coalesced mode writes them (writer cells by Put). */
    LivePath(Connection connection, TableLayout layout, boolean writerCells) {
        this.writerCells = writerCells;
        this.connection = connection;
        this.layout = layout;
        this.oracle = new Recount(layout.cube());
        this.keys = new RowKeyCodec(layout.cube());
        this.codec = new RawEventCodec(keys);
    }

    Recount oracle() {
        return oracle;
    }

    synchronized List<Ev> stored() {
        return List.copyOf(stored);
    }

    /**
     * Stores {@code e}'s raw row; when {@code countLive}, counts its cells as known now. Like the
     * aggregator, it buffers: {@link #flush()} writes the raw rows, then the touched rows' totals.
     */
    synchronized void ingest(Ev e, Instant arrival, boolean countLive) {
        pendingRaw.add(codec.toPut(toEvent(e), arrival));
        stored.add(e);
        if (e.type().equals("impression")) {
            impressions.put(e.id(), e);
        }
        if (countLive) {
            cellsNow(e).forEach((c, v) -> pendingCells.merge(c, v, Long::sum));
        }
    }

    synchronized void flush() {
        try (Table t = connection.getTable(layout.rawTable())) {
            t.put(new ArrayList<>(pendingRaw));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        pendingRaw.clear();
        if (writerCells) {
            writeTotals(pendingCells);
        } else {
            increment(pendingCells, 1);
        }
        pendingCells.clear();
    }

    /** Adds the cells to this writer's running totals and puts every touched row's totals, one Put per row. */
    private void writeTotals(Map<Cell, Long> cells) {
        Map<String, Map<String, Map<String, Long>>> touched = new TreeMap<>();
        cells.forEach((c, d) -> touched.computeIfAbsent(c.rollup(), k -> new HashMap<>()).computeIfAbsent(c.rowHex(), k -> new HashMap<>())
                .put(c.metric(), totals.merge(c, d, Long::sum)));
        lastTimestamp = Math.max(System.currentTimeMillis(), lastTimestamp + 1);
        for (Map.Entry<String, Map<String, Map<String, Long>>> t : touched.entrySet()) {
            List<Put> puts = new ArrayList<>();
            t.getValue().forEach((row, metrics) -> puts.add(WriterCells.put(HexFormat.of().parseHex(row), writer, metrics, lastTimestamp)));
            try (Table table = connection.getTable(layout.counterTable(t.getKey()))) {
                table.put(puts);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The cells {@code e} moves given the impressions stored so far. */
    synchronized Map<Cell, Long> cellsNow(Ev e) {
        Map<String, String> dims = null;
        if (e.impressionId() != null) {
            Ev imp = impressions.get(e.impressionId());
            if (imp != null && !imp.day().isAfter(e.day()) && !imp.day().isBefore(e.day().minusDays(2))) {
                dims = imp.dims();
            }
        }
        Map<Cell, Long> cells = new HashMap<>();
        oracle.count(e, dims, cells);
        return cells;
    }

    /** Adds {@code times} x the cells to the base cells by Increments (the naive mode; damage beside the writer cells). */
    void increment(Map<Cell, Long> cells, int times) {
        Map<String, Map<String, Increment>> byTable = new TreeMap<>();
        for (Map.Entry<Cell, Long> c : cells.entrySet()) {
            byTable.computeIfAbsent(c.getKey().rollup(), k -> new HashMap<>())
                    .computeIfAbsent(c.getKey().rowHex(), k -> new Increment(HexFormat.of().parseHex(k)))
                    .addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes(c.getKey().metric()), c.getValue() * times);
        }
        for (Map.Entry<String, Map<String, Increment>> t : byTable.entrySet()) {
            try (Table table = connection.getTable(layout.counterTable(t.getKey()))) {
                table.batch(new ArrayList<>(t.getValue().values()), new Object[t.getValue().size()]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    void setDuplicates(Ev e, long n) {
        Put p = new Put(keys.rawKey(e.type(), e.id(), e.ts()));
        p.addColumn(TableLayout.RAW_FAMILY, RawEventCodec.DUPLICATES, Bytes.toBytes(n));
        put(layout.rawTable().getNameAsString(), p);
    }

    /** Writes {@code value} bytes into a cell as they are (damage, foreign columns, ghosts). */
    void putCell(String rollup, byte[] row, String qualifier, byte[] value) {
        Put p = new Put(row).addColumn(TableLayout.COUNTER_FAMILY, Bytes.toBytes(qualifier), value);
        put(layout.counterTable(rollup).getNameAsString(), p);
    }

    void deleteCell(String rollup, byte[] row, String qualifier) {
        try (Table t = connection.getTable(layout.counterTable(rollup))) {
            t.delete(new org.apache.hadoop.hbase.client.Delete(row).addColumns(TableLayout.COUNTER_FAMILY, Bytes.toBytes(qualifier)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void putRaw(byte[] row, byte[] value, Instant arrival) {
        Put p = new Put(row).addColumn(TableLayout.RAW_FAMILY, RawEventCodec.VALUE, value)
                .addColumn(TableLayout.RAW_FAMILY, RawEventCodec.ARRIVAL, Bytes.toBytes(arrival.toEpochMilli()));
        put(layout.rawTable().getNameAsString(), p);
    }

    static Event toEvent(Ev e) {
        Map<String, Long> numbers = new HashMap<>();
        if (e.type().equals("impression")) {
            numbers.put("costMicros", e.cost());
        } else if (e.type().equals("conversion")) {
            numbers.put("valueMicros", e.value());
        }
        return new Event(e.type(), e.id(), e.ts(), e.impressionId() == null ? e.dims() : Map.of(), numbers,
                e.impressionId(), Map.of());
    }

    /** Every stored cell of every counter table: cell → value bytes and timestamp. */
    Map<String, String> snapshot() {
        Map<String, String> out = new TreeMap<>();
        for (String rollup : Recount.ROLLUPS.keySet()) {
            try (Table t = connection.getTable(layout.counterTable(rollup)); ResultScanner rs = t.getScanner(new Scan())) {
                for (Result r : rs) {
                    for (org.apache.hadoop.hbase.Cell c : r.rawCells()) {
                        if (c.getType() != Type.Put) {
                            continue;
                        }
                        out.put(rollup + "|" + Recount.hex(r.getRow()) + "|" + Bytes.toString(CellUtil.cloneQualifier(c)),
                                Recount.hex(CellUtil.cloneValue(c)) + "@" + c.getTimestamp());
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** Stored base cells of {@code day}'s metrics (value bytes as stored), from a full scan. */
    Map<Cell, byte[]> cellsOfDay(LocalDate day) {
        Map<Cell, byte[]> out = new HashMap<>();
        forEachCellOfDay(day, (cell, c) -> {
            if (c.getQualifierLength() == cell.metric().length()) { // not a writer cell
                out.put(cell, CellUtil.cloneValue(c));
            }
        });
        return out;
    }

    /**
     * Moves the live counts of {@code day} into writer cells, as live aggregators write them
     * (qualifier = metric name, a 0 byte, an 8-byte writer id), keeping every metric's sum: per
     * 8-byte cell, at random, left alone, split between the base cell and one writer cell, held
     * by two writer cells alone (the base cell deleted), or split between the base cell and six.
     */
    void splitIntoWriterCells(LocalDate day, java.util.Random rnd) {
        for (Map.Entry<Cell, byte[]> c : cellsOfDay(day).entrySet()) {
            if (c.getValue().length != 8) {
                continue;
            }
            long v = Bytes.toLong(c.getValue());
            byte[] row = HexFormat.of().parseHex(c.getKey().rowHex());
            byte[] base = Bytes.toBytes(c.getKey().metric());
            Put p = new Put(row);
            switch (rnd.nextInt(4)) {
                case 0 -> {
                    continue;
                }
                case 1 -> {
                    long a = v / 2;
                    p.addColumn(TableLayout.COUNTER_FAMILY, base, Bytes.toBytes(v - a));
                    p.addColumn(TableLayout.COUNTER_FAMILY, writer(base, 0x1111L), Bytes.toBytes(a));
                }
                case 2 -> {
                    long a = v / 3;
                    deleteCell(c.getKey().rollup(), row, c.getKey().metric());
                    p.addColumn(TableLayout.COUNTER_FAMILY, writer(base, 0x2222L), Bytes.toBytes(v - a));
                    p.addColumn(TableLayout.COUNTER_FAMILY, writer(base, 0x3333L), Bytes.toBytes(a));
                }
                default -> { // six writers (restarts, start-overs): more than the job leaves in place
                    long a = v / 6;
                    p.addColumn(TableLayout.COUNTER_FAMILY, base, Bytes.toBytes(v - 6 * a));
                    for (long w = 1; w <= 6; w++) {
                        p.addColumn(TableLayout.COUNTER_FAMILY, writer(base, 0x4400L + w), Bytes.toBytes(a));
                    }
                }
            }
            put(layout.counterTable(c.getKey().rollup()).getNameAsString(), p);
        }
    }

    private static byte[] writer(byte[] metric, long id) {
        return Bytes.add(metric, new byte[] {0}, Bytes.toBytes(id));
    }

    /**
     * Each metric's value on {@code day}: the sum of its cells (the base cell and every writer
     * cell, decoded here on their own); a cell that is not an 8-byte long makes it Long.MIN_VALUE.
     */
    Map<Cell, Long> sumsOfDay(LocalDate day) {
        Map<Cell, Long> out = new HashMap<>();
        forEachCellOfDay(day, (cell, c) -> out.merge(cell, c.getValueLength() == 8 ? Bytes.toLong(CellUtil.cloneValue(c)) : Long.MIN_VALUE,
                (a, b) -> a == Long.MIN_VALUE || b == Long.MIN_VALUE ? Long.MIN_VALUE : a + b));
        return out;
    }

    /** The metrics of {@code day} that hold at least one writer cell, and how many they hold. */
    Map<Cell, Integer> writerCellsOfDay(LocalDate day) {
        Map<Cell, Integer> out = new HashMap<>();
        forEachCellOfDay(day, (cell, c) -> {
            if (c.getQualifierLength() > cell.metric().length()) {
                out.merge(cell, 1, Integer::sum);
            }
        });
        return out;
    }

    private void forEachCellOfDay(LocalDate day, java.util.function.BiConsumer<Cell, org.apache.hadoop.hbase.Cell> action) {
        long from = day.toEpochDay() * 1440;
        for (String rollup : Recount.ROLLUPS.keySet()) {
            try (Table t = connection.getTable(layout.counterTable(rollup)); ResultScanner rs = t.getScanner(new Scan())) {
                for (Result r : rs) {
                    long minute = keys.parseCounterKey(r.getRow()).bucketMinute();
                    if (minute < from || minute >= from + 1440) {
                        continue;
                    }
                    for (org.apache.hadoop.hbase.Cell c : r.rawCells()) {
                        byte[] q = CellUtil.cloneQualifier(c);
                        int end = 0;
                        while (end < q.length && q[end] != 0) {
                            end++;
                        }
                        String metric = Bytes.toString(q, 0, end);
                        if (layout.cube().metric(metric).isPresent()) {
                            action.accept(new Cell(rollup, Recount.hex(r.getRow()), metric), c);
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void put(String table, Put p) {
        try (Table t = connection.getTable(org.apache.hadoop.hbase.TableName.valueOf(table))) {
            t.put(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
