package io.adreport.aggregator.spend;

import io.adreport.aggregator.flush.CounterWriter;
import io.adreport.schema.event.Event;

/**
 * The counter path plus live spend: every newly stored event goes to the counters as before and
 * its impression cost to the {@link SpendFlusher}. Flushes, shutdown and a crash reach both.
 */
public final class SpendCounting implements CounterWriter {
    private final CounterWriter counters;
    private final SpendFlusher spend;

    public SpendCounting(CounterWriter counters, SpendFlusher spend) {
        this.counters = counters;
        this.spend = spend;
    }

    @Override
    public void count(Event e, boolean attributed) {
        counters.count(e, attributed);
        spend.add(e);
    }

    @Override
    public void countAll(java.util.List<Counted> events) {
        counters.countAll(events);
        for (Counted c : events) {
            spend.add(c.event());
        }
    }

    @Override
    public Admission admit(java.util.List<Event> events, long timeoutNanos) throws InterruptedException {
        return counters.admit(events, timeoutNanos);
    }

    @Override
    public io.adreport.schema.counting.LiveCounts.Answer live(io.adreport.schema.counting.LiveCounts.Request request) {
        return counters.live(request);
    }

    @Override
    public void flushNow() {
        spend.flushNow();
        counters.flushNow();
    }

    @Override
    public void abandon() {
        spend.abandon();
        counters.abandon();
    }

    @Override
    public void close() {
        spend.close();
        counters.close();
    }
}
