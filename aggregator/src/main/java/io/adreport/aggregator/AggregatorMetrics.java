package io.adreport.aggregator;

import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.metrics.Metrics.Counter;
import io.adreport.schema.metrics.Metrics.Histogram;

/**
 * Every metric the aggregator exports, registered once on a shared {@link Metrics} registry so
 * that the components only hold typed handles. Label values are bounded: outcomes, statuses and
 * the field names of the cube (rejection reasons), never user input.
 */
public final class AggregatorMetrics {
    private final Metrics registry;

    public final Counter accepted;
    public final Counter duplicates;
    public final Counter late;
    public final Counter storeFailures;
    public final Counter duplicateMarkFailures;
    public final Counter countedEvents;
    public final Counter fanoutCells;
    public final Counter incrementsSent;
    public final Counter cellsSent;
    public final Counter flushFailures;
    public final Counter cellsUnapplied;
    public final Counter existenceReads;
    public final Counter existenceSkipped;
    public final Counter cellsDroppedClosedDay;
    public final WriteTally rawWrites;
    public final Histogram rawWriteSeconds;
    public final Histogram queueWaitSeconds;
    public final Histogram flushSeconds;
    public final Histogram requestSeconds;
    public final Histogram liveAnswerSeconds;

    public AggregatorMetrics(Metrics registry) {
        this.registry = registry;
        accepted = registry.counter("adreport_ingest_events_total", "Events answered by ingest, by outcome", "outcome", "accepted");
        duplicates = registry.counter("adreport_ingest_events_total", "Events answered by ingest, by outcome", "outcome", "duplicate");
        late = registry.counter("adreport_ingest_late_events_total",
                "Accepted events of a closed day: stored raw, not counted live (the nightly job counts them)");
        storeFailures = registry.counter("adreport_raw_store_failures_total", "Events whose raw write failed (answered 503, not counted)");
        duplicateMarkFailures = registry.counter("adreport_raw_duplicate_marks_failed_total",
                "Best-effort e:dup increments on raw rows that failed");
        countedEvents = registry.counter("adreport_counted_events_total", "Newly stored events fanned out into live counters");
        fanoutCells = registry.counter("adreport_fanout_cells_total", "Counter deltas produced by fan-out, before coalescing");
        incrementsSent = registry.counter("adreport_increments_sent_total", "Counter row writes sent to HBase, one per row per flush (writer-cell Puts; naive mode: Increments)");
        cellsSent = registry.counter("adreport_increment_cells_sent_total", "Counter cells sent to HBase (writer cells; naive mode: Increment cells)");
        flushFailures = registry.counter("adreport_flush_failures_total", "Counter flush batches (or naive increments) that failed");
        cellsUnapplied = registry.counter("adreport_increment_cells_unapplied_total",
                "Counter cells whose write failed or has an uncertain outcome; not resent, the row's next flush or the nightly job restores them");
        cellsDroppedClosedDay = registry.counter("adreport_increment_cells_dropped_closed_day_total",
                "Counter cells not sent because their day is closing or reconciled");
        rawWriteSeconds = registry.histogram("adreport_raw_write_seconds", "Group commit to the raw table: existence reads + puts",
                Metrics.LATENCY_BUCKETS);
        queueWaitSeconds = registry.histogram("adreport_ingest_queue_wait_seconds",
                "Time a request's events wait for a raw-store writer", Metrics.LATENCY_BUCKETS);
        flushSeconds = registry.histogram("adreport_flush_seconds", "Duration of one buffer flush", Metrics.LATENCY_BUCKETS);
        requestSeconds = registry.histogram("adreport_ingest_request_seconds", "POST /v1/events latency, parse to response",
                Metrics.LATENCY_BUCKETS);
        liveAnswerSeconds = registry.histogram("adreport_live_answer_seconds",
                "Live-counts answers to the report API (POST " + LiveCounts.PATH + "), request read to answer encoded",
                Metrics.LATENCY_BUCKETS);
        String checks = "Dedup and join-target checks of raw rows, by how they were answered";
        rawWrites = WriteTally.of(registry, "raw");
        existenceReads = registry.counter("adreport_raw_existence_checks_total", checks, "answer", "read");
        existenceSkipped = registry.counter("adreport_raw_existence_checks_total", checks, "answer", "filter");
        registry.gauge("adreport_cells_per_event", "Counter cells sent per counted event (lower means better coalescing)",
                () -> countedEvents.get() == 0 ? 0 : (double) cellsSent.get() / countedEvents.get());
    }

    public Metrics registry() {
        return registry;
    }

    public void rejected(String reason) {
        registry.counter("adreport_ingest_rejected_total", "Events rejected by validation, by field", "reason", reason).inc();
    }

    public void request(int status) {
        registry.counter("adreport_ingest_requests_total", "Ingest requests by HTTP status", "status", Integer.toString(status)).inc();
    }
}
