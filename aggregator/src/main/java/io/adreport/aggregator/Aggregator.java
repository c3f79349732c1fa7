package io.adreport.aggregator;

import io.adreport.aggregator.coalesce.CoalescingBuffer;
import io.adreport.aggregator.dayclose.DayCloseWatcher;
import io.adreport.aggregator.dayclose.SendGate;
import io.adreport.aggregator.flush.CoalescedCounters;
import io.adreport.aggregator.flush.CounterWriter;
import io.adreport.aggregator.flush.Flusher;
import io.adreport.aggregator.flush.NaiveCounters;
import io.adreport.aggregator.ingest.EdgeGuard;
import io.adreport.aggregator.ingest.IngestServer;
import io.adreport.schema.meta.ApiKeyStore;
import io.adreport.schema.trust.TrustConfig;
import io.adreport.aggregator.profile.ViewRecorder;
import io.adreport.aggregator.spend.SpendCounting;
import io.adreport.aggregator.spend.SpendFlusher;
import io.adreport.aggregator.store.GroupCommit;
import io.adreport.aggregator.store.PutOnlyCommit;
import io.adreport.aggregator.store.RawStore;
import io.adreport.aggregator.store.StoredIds;
import io.adreport.schema.counting.CounterCells;
import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.spend.SpendRows;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.threads.DaemonThreads;
import io.javalin.Javalin;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running aggregator: HTTP ingest → raw store with dedup and attribution → counter fan-out
 * (coalesced or naive) → HBase counter tables, with the day-close handshake beside it, and (for a
 * cube with campaigns and costs) live campaign spend → this instance's spend shard rows.
 *
 * <p>Start-up order: day-close watcher (reads the closed days once before any event is
 * counted), counter path, raw store, HTTP last. {@link #close()} runs the reverse: stop HTTP
 * (no new requests), let the raw store answer every admitted request, flush the counter
 * buffer, stop the watcher. The caller owns the {@link Connection} and closes it afterwards.
 */
public final class Aggregator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Aggregator.class);

    private final AggregatorConfig config;
    private final AggregatorMetrics metrics;
    private final DayCloseWatcher watcher;
    private final CounterWriter counters;
    private final RawStore store;
    private final StoredIds storedIds;
    private final ExecutorService flushPool;
    private final Javalin http;
    private boolean closed;

    private Aggregator(AggregatorConfig config, AggregatorMetrics metrics, DayCloseWatcher watcher, CounterWriter counters,
                       RawStore store, StoredIds storedIds, ExecutorService flushPool, Javalin http) {
        this.storedIds = storedIds;
        this.config = config;
        this.metrics = metrics;
        this.watcher = watcher;
        this.counters = counters;
        this.store = store;
        this.flushPool = flushPool;
        this.http = http;
    }

    /** Starts an aggregator over the shared {@code connection}; tables must exist (schema apply). */
    public static Aggregator start(Connection connection, TableLayout layout, EventParser parser, AggregatorConfig config,
                                   Clock clock) {
        return start(connection, layout, parser, config, clock, TableSource.of(connection, config.hbaseTimeout(), config.flushTimeout()),
                new Metrics());
    }

    /** As above, with who may write ({@link TrustConfig}); the other settings their defaults (benchmarks, tools). */
    public static Aggregator start(Connection connection, TableLayout layout, EventParser parser, AggregatorConfig config,
                                   Clock clock, TrustConfig trust) {
        return start(connection, layout, parser, config, clock, TableSource.of(connection, config.hbaseTimeout(), config.flushTimeout()),
                new Metrics(), ProfileConfig.defaults(), trust);
    }

    /**
     * As {@link #start(Connection, TableLayout, EventParser, AggregatorConfig, Clock)}, with the
     * table source (fault injection) and the metrics registry (to share one {@code /metrics})
     * given by the caller.
     */
    public static Aggregator start(Connection connection, TableLayout layout, EventParser parser, AggregatorConfig config,
                                   Clock clock, TableSource tables, Metrics registry) {
        return start(connection, layout, parser, config, clock, tables, registry, ProfileConfig.defaults());
    }

    /**
     * As above, with the device-profile settings; for a cube with profiles
     * ({@link ProfileModel#supported}) every stored impression is written to its device's view
     * history before it is acknowledged.
     */
    public static Aggregator start(Connection connection, TableLayout layout, EventParser parser, AggregatorConfig config,
                                   Clock clock, TableSource tables, Metrics registry, ProfileConfig profiles) {
        return start(connection, layout, parser, config, clock, tables, registry, profiles, TrustConfig.defaults());
    }

    /**
     * As above, with who may write ({@link TrustConfig}): the ingest key rule and the pixel's
     * signature check ({@link EdgeGuard}).
     */
    public static Aggregator start(Connection connection, TableLayout layout, EventParser parser, AggregatorConfig config,
                                   Clock clock, TableSource tables, Metrics registry, ProfileConfig profiles, TrustConfig trust) {
        HeartbeatStore heartbeats = new HeartbeatStore(connection, layout, clock);
        EdgeGuard guard = new EdgeGuard(trust, layout.cube(), new ApiKeyStore(connection, layout, clock, config.hbaseTimeout()),
                new CampaignStore(connection, layout), heartbeats, config.aggregatorId(), clock, registry);
        if (guard.mode() != TrustConfig.Mode.OFF && trust.keys().isEmpty()) {
            LOG.warn("ingest.beacons.signed is {} but beacon.keys is empty: no pixel beacon can verify (unsigned ones are refused in required mode, signed ones as unknown-key)",
                    guard.mode().name().toLowerCase(java.util.Locale.ROOT));
        }
        AggregatorMetrics metrics = new AggregatorMetrics(registry);
        // One RPC timeout of a counter call (TableSource.of) after an uncertain call returned: a request
        // that reached a region server before then and still waits in its queue has passed its deadline.
        long counterCallMs = Math.max(config.hbaseTimeout().toMillis(), config.flushTimeout().toMillis());
        SendGate gate = new SendGate(Duration.ofMillis(Math.min(counterCallMs, 60_000)));
        DayCloseWatcher watcher = new DayCloseWatcher(new DayStatusStore(connection, layout, clock), heartbeats, clock, config.aggregatorId(),
                config.dayCloseWindow(), config.heartbeatInterval(), gate, config.instances());
        watcher.start(config.dayClosePoll());
        CounterCells cells = new CounterCells(layout.cube(), new RowKeyCodec(layout.cube()));
        ExecutorService flushPool = null;
        CounterWriter counters;
        if (config.mode() == AggregatorConfig.Mode.PUT_ONLY) {
            counters = new NoCounters();
        } else if (config.mode() == AggregatorConfig.Mode.NAIVE) {
            counters = new NaiveCounters(layout, cells, tables, watcher, gate, metrics);
        } else {
            flushPool = Executors.newFixedThreadPool(config.flushConcurrency(), DaemonThreads.named("adreport-flush-batch"));
            // The flusher's writer totals (WriterTotals) are bounded by a quarter as many rows as
            // buffer.max.cells allows cells (500,000 rows with a heap of 2 GB or more; the default bound comes
            // from the heap, AggregatorConfig.bufferCells). A start-over keeps the most
            // recently touched half of that bound, so they can hold that half plus one flush's rows.
            // A row costs its key, its column totals and four longs more (epoch day, id slot, the
            // flushes that added it and last touched it). /metrics shows what their arrays hold
            // (adreport_writer_bytes) and the most they held at once (adreport_writer_peak_bytes).
            Flusher flusher = new Flusher(layout, cells, tables, flushPool, config.flushBatchRows(),
                    config.flushDurability(), metrics, gate, watcher::isClosed, Math.max(10_000, config.bufferMaxCells() / 4));
            counters = new CoalescedCounters(cells, new CoalescingBuffer(cells.columns(), config.bufferMaxCells(), clock, config.bufferMaxAge()), flusher,
                    watcher, metrics, config.flushInterval());
        }
        if (config.mode() != AggregatorConfig.Mode.PUT_ONLY && SpendRows.supported(layout.cube())) {
            counters = new SpendCounting(counters, new SpendFlusher(tables, layout, config.aggregatorId(),
                    config.spendFlushInterval(), clock, registry));
        }
        StoredIds storedIds = new StoredIds(layout, tables, clock, config.effectiveDedupFilterDays(), config.dedupFilterMaxBytes());
        registry.gauge("adreport_dedup_filter_bytes", "Heap bytes of the Bloom filters of stored raw keys (recent days)",
                storedIds::bytes);
        RawStore store;
        if (config.mode() == AggregatorConfig.Mode.PUT_ONLY) {
            LOG.warn("aggregator.mode=put-only is for benchmarks only: events are stored raw with plain Puts, NOT deduplicated "
                    + "and NOT counted; reports will stay empty");
            store = new RawStore(new PutOnlyCommit(layout, tables, clock, metrics), metrics, config.writerThreads(),
                    config.writeBatchMax(), config.queueEvents());
        } else {
            if (config.conditionalRawWrites()) {
                LOG.info("aggregator.instances={}: raw writes are put-if-absent and the dedup filter is off", config.instances());
            }
            ViewRecorder views = ProfileModel.supported(layout.cube())
                    ? new ViewRecorder(layout, tables, profiles, new UnidentifiedDevices(parser.hashes(), profiles.placeholders()), clock, registry)
                    : null;
            GroupCommit commit = new GroupCommit(layout, tables, counters, watcher, clock, metrics, storedIds,
                    config.conditionalRawWrites(), views);
            store = new RawStore(commit, metrics, config.writerThreads(), config.writeBatchMax(), config.queueEvents());
        }
        Javalin http = IngestServer.create(parser, store, counters, metrics, config.blockTimeout(), config.hbaseTimeout(), guard);
        http.start(config.port());
        if (config.mode() == AggregatorConfig.Mode.COALESCED) {
            String url = config.advertisedUrl(http.port());
            try {
                heartbeats.advertise(config.aggregatorId(), url);
                LOG.info("aggregator {} serves its live counts at {}{}", config.aggregatorId(), url, LiveCounts.PATH);
            } catch (RuntimeException e) { // reports then see its counts once flushed, as without live reads
                LOG.warn("could not advertise live counts of aggregator {} in meta: {}", config.aggregatorId(), e.toString());
            }
        }
        LOG.info("aggregator {} ({} mode) ingesting on port {}", config.aggregatorId(), config.mode().setting(), http.port());
        return new Aggregator(config, metrics, watcher, counters, store, storedIds, flushPool, http);
    }

    /** The ingest port actually bound. */
    public int port() {
        return http.port();
    }

    public AggregatorConfig config() {
        return config;
    }

    /** The registry behind {@code /metrics}. */
    public Metrics metrics() {
        return metrics.registry();
    }

    /** Typed handles of the aggregator's metrics (tests, harnesses). */
    public AggregatorMetrics stats() {
        return metrics;
    }

    /** The filter of stored raw keys (tests). */
    public StoredIds storedIds() {
        return storedIds;
    }

    /**
     * True once this aggregator has seen {@code day} closed: from then on it counts none of the
     * day's cells live and its flushes skip them (tests: the moment a close reaches it).
     */
    boolean seesClosed(java.time.LocalDate day) {
        return watcher.isClosed(day.toEpochDay());
    }

    /** Sends every buffered counter delta now and returns when done (tests, benchmarks). */
    public void flushNow() {
        counters.flushNow();
    }

    /**
     * Stops as a crash would, for failure tests and a fatal error: no final flush (buffered deltas
     * are lost; the nightly job restores them from the raw rows) and no retirement in meta (a day
     * close waits for this instance until its last heartbeat expires). Requests already admitted
     * are still answered: their raw rows are written, so an answer never lies.
     */
    public synchronized void abort() {
        if (closed) {
            return;
        }
        closed = true;
        watcher.abort();
        counters.abandon();
        http.stop();
        store.close();
        storedIds.close();
        if (flushPool != null) {
            flushPool.shutdownNow();
        }
        LOG.warn("aggregator {} aborted", config.aggregatorId());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        http.stop();
        store.close();
        storedIds.close();
        counters.close();
        watcher.close();
        if (flushPool != null) {
            flushPool.shutdown();
            try {
                flushPool.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LOG.info("aggregator {} stopped", config.aggregatorId());
    }

    /** Put-only mode's counter path: nothing is counted, so nothing waits and nothing is flushed. */
    private static final class NoCounters implements CounterWriter {
        @Override
        public void count(io.adreport.schema.event.Event e, boolean attributed) {
            // put-only mode counts nothing (PutOnlyCommit never calls this)
        }

        // admit, flushNow, close: the defaults (nothing is buffered)
    }
}
