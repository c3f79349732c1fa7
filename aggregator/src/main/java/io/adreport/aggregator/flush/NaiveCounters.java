package io.adreport.aggregator.flush;

import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.TableSource;
import io.adreport.schema.counting.CounterCells;
import io.adreport.aggregator.dayclose.DayCloseWatcher;
import io.adreport.aggregator.dayclose.SendGate;
import io.adreport.schema.event.Event;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic recipe, kept for comparison: every counter cell of every event is one synchronous
 * {@code incrementColumnValue}, sent by the raw-store writer thread before the event's request is
 * answered. Same counting rules, dedup, attribution and day close as the coalesced path; no
 * buffer, so nothing to flush and no push-back beyond the writers' own pace.
 *
 * <p>Failure: a failed increment is not retried (its outcome is uncertain, see {@link Flusher});
 * it is counted as unapplied and left to the nightly job.
 */
public final class NaiveCounters implements CounterWriter {
    private static final Logger LOG = LoggerFactory.getLogger(NaiveCounters.class);

    private final TableLayout layout;
    private final CounterCells cells;
    private final TableSource tables;
    private final DayCloseWatcher days;
    private final SendGate gate;
    private final AggregatorMetrics metrics;

    public NaiveCounters(TableLayout layout, CounterCells cells, TableSource tables, DayCloseWatcher days, SendGate gate,
                         AggregatorMetrics metrics) {
        this.layout = layout;
        this.cells = cells;
        this.tables = tables;
        this.days = days;
        this.gate = gate;
        this.metrics = metrics;
    }

    @Override
    public void count(Event e, boolean attributed) {
        List<Cell> todo = new ArrayList<>();
        int n = cells.forEach(e, attributed, (table, row, day, column, delta) -> todo.add(new Cell(table, row, day, column, delta)));
        Set<Long> eventDays = new HashSet<>();
        todo.forEach(c -> eventDays.add((long) c.day()));
        Map<Integer, Table> open = new HashMap<>();
        // Registered before the closed days are read: see SendGate.
        try (SendGate.Send send = gate.enter(eventDays)) {
            for (long d : eventDays) {
                if (days.isClosed(d)) {
                    send.skip(d);
                }
            }
            for (Cell c : todo) {
                if (days.isClosed(c.day())) {
                    metrics.cellsDroppedClosedDay.inc();
                    continue;
                }
                try {
                    Table t = open.get(c.table());
                    if (t == null) {
                        t = tables.open(layout.counterTable(cells.rollup(c.table())));
                        open.put(c.table(), t);
                    }
                    t.incrementColumnValue(c.row(), TableLayout.COUNTER_FAMILY, cells.qualifier(c.column()), c.delta());
                    metrics.incrementsSent.inc();
                    metrics.cellsSent.inc();
                } catch (IOException | RuntimeException ex) {
                    send.uncertain(c.day());
                    metrics.flushFailures.inc();
                    metrics.cellsUnapplied.inc();
                    LOG.warn("naive increment failed, left to the nightly job: {}", ex.toString());
                }
            }
            metrics.countedEvents.inc();
            metrics.fanoutCells.add(n);
        } finally {
            for (Table t : open.values()) {
                try {
                    t.close();
                } catch (IOException ignored) {
                    // Tables over a shared connection hold nothing to release.
                }
            }
        }
    }

    private record Cell(int table, byte[] row, int day, int column, long delta) {
    }

    // admit, flushNow, close: the defaults (every increment is sent synchronously; nothing is buffered).
}
