package io.adreport.aggregator.ingest;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.adreport.aggregator.AggregatorMetrics;
import io.adreport.aggregator.flush.CounterWriter;
import io.adreport.aggregator.store.Outcome;
import io.adreport.aggregator.store.Overloaded;
import io.adreport.aggregator.store.RawStore;
import io.adreport.aggregator.store.StoreUnavailable;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.event.EventRejected;
import io.adreport.schema.trust.BeaconSigner;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ingest endpoints. A request is read and validated whole first ({@link EventBody}; bad JSON: 400, nothing stored;
 * invalid events: listed, the valid ones still stored), then admitted only if the counter
 * buffer and the raw-store queue have room within the block limit (else 429 + Retry-After,
 * nothing stored), then answered when every valid event is durably stored or found stored
 * (HBase failure: 503; rows are written whole or not at all, and a retry is deduplicated).
 */
final class IngestController {
    /** 1x1 transparent GIF. */
    static final byte[] PIXEL = java.util.Base64.getDecoder().decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");

    private final EventParser parser;
    private final RawStore store;
    private final CounterWriter counters;
    private final AggregatorMetrics metrics;
    private final long blockNanos;
    private final long answerTimeoutNanos;
    private final EdgeGuard guard;

    IngestController(EventParser parser, RawStore store, CounterWriter counters, AggregatorMetrics metrics,
                     Duration block, Duration hbaseTimeout, EdgeGuard guard) {
        this.guard = guard;
        this.parser = parser;
        this.store = store;
        this.counters = counters;
        this.metrics = metrics;
        this.blockNanos = block.toNanos();
        this.answerTimeoutNanos = hbaseTimeout.multipliedBy(3).plus(block).toNanos();
    }

    void postEvents(Context ctx) {
        long start = System.nanoTime();
        if (ctx.contentLength() > EventBody.MAX_BYTES) {
            throw new IngestError(413, "body: must be at most " + EventBody.MAX_BYTES + " bytes (10 MiB)");
        }
        IngestResponse response = ingest(EventBody.parse(ctx.bodyAsBytes(), parser));
        metrics.requestSeconds.observeNanos(System.nanoTime() - start);
        ctx.json(response);
    }

    /**
     * {@code GET /v1/pixel}: one beacon in the query string. Its signature is checked first
     * ({@link EdgeGuard#verify}); a refused beacon stores nothing and is still answered 200 with
     * the GIF, {@code X-Adreport-Beacon: refused} and the reason in {@code X-Adreport-Beacon-Reason}.
     * An invalid event is 400 (with the GIF and {@code X-Adreport-Error}); otherwise
     * {@code X-Adreport-Beacon} says {@code stored} or {@code duplicate}. The device token
     * {@code dt} of a beacon is its device's keyed hash, taken as the hashed field's value.
     */
    void pixel(Context ctx) {
        ctx.header("Cache-Control", "no-store");
        BeaconSigner.Verdict verdict = guard.verify(ctx.queryParamMap());
        if (verdict.refused() != null) {
            ctx.header("X-Adreport-Beacon", "refused");
            ctx.header("X-Adreport-Beacon-Reason", verdict.refused().label);
            ctx.contentType("image/gif").result(PIXEL);
            return;
        }
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        Cube cube = parser.cube();
        for (Map.Entry<String, String> p : verdict.fields().entrySet()) {
            String name = p.getKey();
            String value = p.getValue();
            boolean numeric = cube.numericField(name).isPresent() || name.equals(cube.event().timeField());
            if (numeric && value.matches("-?\\d{1,18}")) {
                node.put(name, Long.parseLong(value));
            } else {
                node.put(name, value);
            }
        }
        EventBody.Parsed one = new EventBody.Parsed(new ArrayList<>(1), new ArrayList<>(0));
        try {
            one.events().add(withDevice(parser.parse(node), verdict.deviceToken()));
        } catch (EventRejected e) {
            one.rejected().add(new EventBody.Rejected(0, e));
        }
        IngestResponse r = ingest(one);
        if (!r.rejected().isEmpty()) {
            ctx.header("X-Adreport-Error", r.rejected().get(0).error());
            ctx.header("X-Adreport-Beacon", "invalid");
            ctx.status(400);
        } else {
            ctx.header("X-Adreport-Beacon", r.accepted() == 1 ? "stored" : "duplicate");
        }
        ctx.contentType("image/gif").result(PIXEL);
    }

    /** {@code e} with the device token as the value of the cube's (first) hashed field. */
    private Event withDevice(Event e, String token) {
        List<String> hashedFields = parser.cube().event().hashedFields();
        if (token == null || hashedFields.isEmpty()) {
            return e;
        }
        Map<String, String> hashed = new java.util.HashMap<>(e.hashed());
        hashed.put(hashedFields.get(0), token);
        hashed.remove(io.adreport.schema.event.DeviceHashes.formerField(hashedFields.get(0))); // the token names the device
        return new Event(e.type(), e.id(), e.ts(), e.dimensions(), e.numbers(), e.joinRef(), hashed);
    }

    private IngestResponse ingest(EventBody.Parsed body) {
        List<Event> events = body.events();
        List<IngestResponse.Rejection> rejected = new ArrayList<>(body.rejected().size());
        for (EventBody.Rejected r : body.rejected()) {
            rejected.add(new IngestResponse.Rejection(r.index(), r.error().getMessage()));
            metrics.rejected(r.error().reason());
        }
        if (events.isEmpty()) {
            return new IngestResponse(0, 0, rejected);
        }
        List<Outcome> outcomes = store(events);
        long accepted = outcomes.stream().filter(o -> o == Outcome.STORED).count();
        long duplicates = outcomes.size() - accepted;
        metrics.accepted.add(accepted);
        metrics.duplicates.add(duplicates);
        return new IngestResponse(accepted, duplicates, rejected);
    }

    private List<Outcome> store(List<Event> events) {
        try {
            CounterWriter.Admission room = counters.admit(events, blockNanos);
            if (room == null) {
                throw new IngestError(429, "overloaded: counter buffer full, retry later");
            }
            java.util.concurrent.CompletableFuture<List<Outcome>> stored = null;
            try {
                stored = store.submit(events, blockNanos);
            } finally {
                if (stored == null) {
                    room.close(); // nothing of the request was queued
                }
            }
            // The events are counted before their outcome completes; the room is held until then,
            // also when this request stops waiting first.
            stored.whenComplete((outcomes, failure) -> room.close());
            return stored.get(answerTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (Overloaded e) {
            throw new IngestError(429, "overloaded: " + e.getMessage() + ", retry later");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IngestError(503, "interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String why = cause instanceof StoreUnavailable ? cause.getMessage() : String.valueOf(cause);
            throw new IngestError(503, "storage unavailable, retry later: " + why);
        } catch (TimeoutException e) {
            throw new IngestError(503, "storage did not answer in time, retry later (a retry is deduplicated)");
        }
    }

    void healthz(Context ctx) {
        ctx.json(Map.of("status", "ok", "queuedEvents", store.queued()));
    }

    void metrics(Context ctx) {
        ctx.contentType(io.adreport.schema.metrics.Metrics.CONTENT_TYPE).result(metrics.registry().scrape());
    }
}
