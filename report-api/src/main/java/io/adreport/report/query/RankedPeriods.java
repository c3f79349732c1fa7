package io.adreport.report.query;

import io.adreport.http.ReadFailure;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.rowkey.KeyRange;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.topn.RankedIndexCodec;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Which ranked lists a top-N report can merge ({@link RankedTopN}, "Lists" and "Consistency"):
 * the reconciled days of its range whose index is published, and of those the whole UTC months
 * whose month list is current (its pointer names the generations of the day lists now
 * published). Reads the index's pointer rows and the days' states in meta; stateless.
 */
final class RankedPeriods {
    private static final byte[] F = TableLayout.RANKED_FAMILY;
    private static final byte[] GENERATION = RankedIndexCodec.GENERATION_QUALIFIER;
    private static final byte[] DAY_GENERATIONS = RankedIndexCodec.DAY_GENERATIONS_QUALIFIER;

    private final Connection connection;
    private final TableLayout layout;
    private final DayStatusStore meta;

    RankedPeriods(Connection connection, TableLayout layout, DayStatusStore meta) {
        this.connection = connection;
        this.layout = layout;
        this.meta = meta;
    }

    /** Days in [from, to) that are reconciled and have a published index, with its generation. */
    Map<LocalDate, Long> indexedDays(Rollup rollup, LocalDate from, LocalDate toExclusive) {
        Map<LocalDate, Long> gens = new HashMap<>();
        KeyRange range = RankedIndexCodec.pointerRange(rollup, from, toExclusive);
        try (Table t = connection.getTable(layout.rankedIndexTable());
             ResultScanner rs = t.getScanner(new Scan().withStartRow(range.start()).withStopRow(range.stop()).addColumn(F, GENERATION))) {
            for (Result r : rs) {
                gens.put(RankedIndexCodec.pointerDay(r.getRow()), Bytes.toLong(r.getValue(F, GENERATION)));
            }
        } catch (IOException e) {
            throw new ReadFailure("reading the ranked index failed: " + e, e);
        }
        Map<LocalDate, Long> out = new LinkedHashMap<>();
        for (DayState d : meta.days(from, toExclusive.minusDays(1)).values()) {
            if (d.status() == DayStatus.RECONCILED && gens.containsKey(d.day())) {
                out.put(d.day(), gens.get(d.day()));
            }
        }
        return out;
    }

    /**
     * The lists to merge: a current month list for every whole UTC month of [from, to) whose days
     * are all indexed, one day list for every other indexed day.
     */
    List<Period> periods(Rollup rollup, Map<LocalDate, Long> indexed, LocalDate from, LocalDate toExclusive) {
        List<YearMonth> whole = new ArrayList<>();
        for (YearMonth m = YearMonth.from(from); !m.atDay(1).isAfter(toExclusive); m = m.plusMonths(1)) {
            if (!m.atDay(1).isBefore(from) && m.atEndOfMonth().isBefore(toExclusive) && allIndexed(m, indexed)) {
                whole.add(m);
            }
        }
        Map<YearMonth, Long> months = new HashMap<>();
        if (!whole.isEmpty()) {
            List<Get> gets = whole.stream().map(m -> new Get(RankedIndexCodec.monthPointerKey(rollup, m)).addFamily(F)).toList();
            try (Table t = connection.getTable(layout.rankedIndexTable())) {
                Result[] rs = t.get(gets);
                for (int i = 0; i < rs.length; i++) {
                    byte[] g = rs[i].getValue(F, GENERATION);
                    byte[] d = rs[i].getValue(F, DAY_GENERATIONS);
                    if (g != null && d != null && Arrays.equals(RankedIndexCodec.decodeDayGenerations(d), dayGenerations(whole.get(i), indexed))) {
                        months.put(whole.get(i), Bytes.toLong(g));
                    }
                }
            } catch (IOException e) {
                throw new ReadFailure("reading the ranked index failed: " + e, e);
            }
        }
        List<Period> out = new ArrayList<>();
        months.forEach((m, g) -> out.add(new Period(m.atDay(1), m, g)));
        for (Map.Entry<LocalDate, Long> e : indexed.entrySet()) {
            if (!months.containsKey(YearMonth.from(e.getKey()))) {
                out.add(new Period(e.getKey(), null, e.getValue()));
            }
        }
        return out;
    }

    private static boolean allIndexed(YearMonth m, Map<LocalDate, Long> indexed) {
        for (LocalDate d = m.atDay(1); !d.isAfter(m.atEndOfMonth()); d = d.plusDays(1)) {
            if (!indexed.containsKey(d)) {
                return false;
            }
        }
        return true;
    }

    private static long[] dayGenerations(YearMonth m, Map<LocalDate, Long> indexed) {
        long[] out = new long[m.lengthOfMonth()];
        for (int i = 0; i < out.length; i++) {
            out[i] = indexed.get(m.atDay(i + 1));
        }
        return out;
    }

    static Instant startOf(LocalDate day) {
        return day.atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** One ranked list: a reconciled day ({@code month} null) or a whole reconciled month. */
    record Period(LocalDate first, YearMonth month, long generation) {
    }
}
