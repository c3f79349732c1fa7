package io.adreport.aggregator;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import org.apache.hadoop.hbase.client.Durability;

/**
 * The aggregator's settings, validated once at start-up from {@link #DEF}.
 *
 * @param port              ingest HTTP port (0: any free port)
 * @param mode              coalesced (the product), naive (one synchronous increment per cell per event) or
 *                          put-only (benchmark ceiling: raw Puts only, no dedup, no counters)
 * @param flushInterval     longest time a counter delta waits in the buffer
 * @param bufferMaxCells    distinct counter cells that trigger a flush and, while still pending, push back on ingest
 * @param blockTimeout      how long a request waits for buffer or queue space before it gets 429
 * @param dayClosePoll      how often the meta table is read for closed days
 * @param heartbeatInterval how often a heartbeat is written when nothing changed
 * @param dayCloseWindow    how many days back the meta table is read for closed days (must cover the accept window)
 * @param aggregatorId      this aggregator's name in heartbeats
 * @param writerThreads     raw-store writer threads (parallel group commits)
 * @param writeBatchMax     events one writer takes into one group commit
 * @param queueEvents       events admitted to the raw-store queue before requests wait (then 429)
 * @param flushBatchRows    Increments per {@code Table.batch} call
 * @param flushConcurrency  {@code Table.batch} calls in flight during one flush
 * @param hbaseTimeout      operation timeout of every HBase call; beyond it ingest answers 503
 * @param flushDurability   WAL durability of counter Increments (raw events are always SYNC_WAL)
 * @param dedupFilterDays   recent UTC days whose stored raw keys are kept in Bloom filters (0: off)
 * @param dedupFilterMaxBytes memory bound of those filters
 * @param bufferMaxAge      age of the oldest buffered delta that pushes back on ingest like a full buffer (zero: off)
 * @param instances         aggregator processes that may receive the same event (more than 1: put-if-absent raw writes)
 * @param flushTimeout      operation timeout of one counter flush call ({@code Table.batch} of Increments)
 * @param spendFlushInterval longest time an impression's cost waits in memory before it reaches the spend rows
 * @param advertisedUrl     base URL where readers reach this aggregator's live counts (empty: this host's address and the ingest port)
 */
public record AggregatorConfig(int port, Mode mode, Duration flushInterval, int bufferMaxCells, Duration blockTimeout,
                               Duration dayClosePoll, Duration heartbeatInterval, int dayCloseWindow, String aggregatorId,
                               int writerThreads, int writeBatchMax, int queueEvents, int flushBatchRows,
                               int flushConcurrency, Duration hbaseTimeout, Durability flushDurability, int dedupFilterDays,
                               long dedupFilterMaxBytes, Duration bufferMaxAge, int instances,
                               Duration flushTimeout, Duration spendFlushInterval, String advertisedUrl) {

    /** How live counters are written; {@code PUT_ONLY} writes none (benchmarks only). */
    public enum Mode {
        COALESCED, NAIVE, PUT_ONLY;

        /** The setting's spelling: {@code coalesced}, {@code naive}, {@code put-only}. */
        public String setting() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }

        /** Every mode's setting, in declaration order: the values {@code aggregator.mode} accepts. */
        static String[] settings() {
            return java.util.Arrays.stream(values()).map(Mode::setting).toArray(String[]::new);
        }

        static Mode of(String setting) {
            return valueOf(setting.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
        }
    }

    public static final ConfigDef DEF = new ConfigDef("Aggregator")
            .define("ingest.port", Type.INT, "8081", ConfigDef.between(0, 65535),
                    "Ingest HTTP port (POST /v1/events, GET /v1/pixel); 0 picks a free port")
            .define("aggregator.mode", Type.STRING, "coalesced", ConfigDef.oneOf(Mode.settings()),
                    "coalesced: sum deltas in memory and flush each row's running totals as one Put (its writer cells) in "
                            + "batches; naive: one synchronous incrementColumnValue per counter cell per event (for benchmarks); "
                            + "put-only: BENCHMARKS ONLY, the ingest ceiling: each event's raw row is stored by a plain batched Put "
                            + "and nothing else. It does not dedup (a replayed event is stored and accepted again) and does not "
                            + "count (reports stay empty)")
            .define("flush.interval.ms", Type.DURATION_MS, "10000", ConfigDef.between(10, 60_000),
                    "Longest time a counter delta waits in memory before it is sent to HBase. Reports do not wait for it "
                            + "(they add each aggregator's live counts); a longer interval coalesces more writes into one cell, "
                            + "and a crash takes up to this much of the live counts until the nightly job recounts them")
            .define("buffer.max.cells", Type.INT, "0", new ConfigDef.Rule("0 or 1000..10000000", v -> {
                        long x = Long.parseLong(v.trim());
                        return x == 0 || (x >= 1000 && x <= 10_000_000);
                    }).noting("0: from the heap, max heap / 1 KiB, at most 2000000"),
                    "Distinct counter cells waiting in memory (about 125 bytes of heap each), a hard bound: each request "
                            + "reserves its events' fan-out bound before anything is stored, and ingest waits and then answers 429 "
                            + "while it does not fit (a single request larger than the bound is admitted alone into an empty buffer). "
                            + "A full buffer triggers a flush; a flush that runs long carries every delta that arrived meanwhile, so a "
                            + "large bound is what lets coalescing grow with the load. Up to two generations are in memory at once "
                            + "(one filling, one being flushed), beside the writer totals (a quarter as many rows); the default "
                            + "takes the bound from the heap (-Xmx) so that a small heap is not run out by a fast back-fill")
            .define("buffer.max.age.ms", Type.DURATION_MS, "0",
                    ConfigDef.between(0, 600_000).noting("0: off; else more than flush.interval.ms"),
                    "Age of the oldest counter delta in memory at which the buffer counts as full, as at buffer.max.cells: "
                            + "ingest waits for the flusher and then answers 429, so counts never trail by much more than this "
                            + "plus one flush. 0 turns the age bound off (only the cell bound pushes back)")
            .define("ingest.block.ms", Type.DURATION_MS, "2000", ConfigDef.between(0, 60_000),
                    "How long a request waits for buffer or queue space before it is answered 429 with Retry-After")
            .define("dayclose.poll.ms", Type.DURATION_MS, "1000", ConfigDef.between(100, 60_000),
                    "How often the meta table is read for days marked closing")
            .define("heartbeat.interval.ms", Type.DURATION_MS, "10000", ConfigDef.between(100, 600_000),
                    "How often the aggregator records that it is alive, with the closed days it has stopped counting")
            .define("dayclose.window.days", Type.INT, "31", ConfigDef.between(2, 3660).noting("at least the accept window + 1"),
                    "Days back from today that are watched for closing; must cover ingest.accept.window.days")
            .define("aggregator.id", Type.STRING, "", null, v -> v.isEmpty() || v.matches("[A-Za-z0-9_.:-]{1,64}"),
                    "Name of this aggregator in heartbeats; empty means host-pid")
            .define("raw.writer.threads", Type.INT, "4", ConfigDef.between(1, 64),
                    "Raw-store writer threads; each group-commits the events of many requests")
            .define("raw.batch.max", Type.INT, "2000", ConfigDef.between(1, 100_000),
                    "Events one writer takes into one group commit (one multi-get and one multi-put)")
            .define("ingest.queue.events", Type.INT, "50000", ConfigDef.between(10_000, 1_000_000),
                    "Events admitted to the raw-store queue at once; beyond, requests wait and then get 429")
            .define("flush.batch.rows", Type.INT, "1000", ConfigDef.between(1, 100_000),
                    "Counter rows (one Put of a row's writer cells each) per Table.batch call")
            .define("flush.concurrency", Type.INT, "4", ConfigDef.between(1, 64),
                    "Table.batch calls in flight at once during a flush (each holds a region-server handler while it "
                            + "runs)")
            .define("hbase.timeout.ms", Type.DURATION_MS, "15000", ConfigDef.between(100, 600_000),
                    "Operation timeout of the aggregator's HBase calls; a raw write that times out is answered 503")
            .define("flush.timeout.ms", Type.DURATION_MS, "60000", ConfigDef.between(1_000, 600_000),
                    "Operation timeout of one counter flush call (flush.batch.rows rows). A call that outlasts it leaves "
                            + "its rows uncertain: not resent, but a row's next flush writes its absolute totals again, and the "
                            + "nightly job restores the rest. Longer than hbase.timeout.ms because a flush is off the request path "
                            + "and a full buffer pushes back on ingest")
            .define("flush.durability", Type.STRING, "sync_wal", ConfigDef.oneOf("sync_wal", "async_wal"),
                    "WAL durability of the counter flush's Puts. async_wal lets the region server acknowledge before the "
                            + "WAL sync: a region-server crash can then lose up to about a second of live counts, which the next "
                            + "flush of those rows and the nightly job restore (raw events are always written sync_wal)")
            .define("raw.dedup.filter.days", Type.INT, "2", ConfigDef.between(0, 7),
                    "Recent UTC days (today and days before, plus tomorrow) whose stored raw keys are kept in a Bloom filter, "
                            + "so that new events skip their existence read. 0 turns it off. Ignored (off) with aggregator.instances "
                            + "above 1, since a filter sees only its own process's writes")
            .define("raw.dedup.filter.max.mb", Type.INT, "256", ConfigDef.between(1, 65_536),
                    "Heap bound of those filters; a day whose filter reaches its share falls back to existence reads")
            .define("aggregator.instances", Type.INT, "1", ConfigDef.between(1, 1024),
                    "Aggregator processes that write to the same tables and may receive the same event (a retried beacon "
                            + "landing on another instance). 1: dedup is exact within this process (in-flight claims, reads, "
                            + "the dedup filter). More than 1: every raw write is put-if-absent (checkAndMutate, sent without a WAL "
                            + "sync of its own; one synced marker per region makes a group commit durable before its answer), so "
                            + "an event is stored and counted once across instances; the dedup filter is then off. Each instance "
                            + "needs its own aggregator.id")
            .define("ingest.advertised.url", Type.STRING, "", "empty, or http(s)://host:port",
                    v -> v.isEmpty() || v.matches("https?://[^/\\s]+"),
                    "Base URL where the report API reaches this aggregator's live counts (POST /internal/live-counters on "
                            + "the ingest port), recorded in its heartbeat: reports add the counts not yet flushed, so they are "
                            + "fresh whatever flush.interval.ms. Empty: http://, this host's address, the ingest port. Set it "
                            + "when the report API reaches this host by another name")
            .define("spend.flush.ms", Type.DURATION_MS, "250", ConfigDef.between(10, 1000),
                    "Longest time an impression's cost waits in memory before it is added to the campaign's spend row "
                            + "(its own small flush, never behind the counter flush); with serve.pacing.interval.ms it bounds "
                            + "how far a campaign can overspend its budget");

    /**
     * The one rule that spans two settings; every single setting's type and range is checked by
     * {@link #DEF}, the only owner of those rules, before a record is built.
     */
    public AggregatorConfig {
        if (!bufferMaxAge.isZero() && bufferMaxAge.compareTo(flushInterval) <= 0) {
            throw new IllegalArgumentException("buffer.max.age.ms: must be 0 (off) or more than flush.interval.ms ("
                    + flushInterval.toMillis() + "), got " + bufferMaxAge.toMillis());
        }
    }

    /** Whether raw writes must be put-if-absent: another aggregator may store the same event. */
    public boolean conditionalRawWrites() {
        return instances > 1;
    }

    /** The dedup filter's days in force: off with several instances (it sees only this process's writes). */
    public int effectiveDedupFilterDays() {
        return conditionalRawWrites() ? 0 : dedupFilterDays;
    }

    public static AggregatorConfig from(ConfigDef.Values v) {
        String id = v.string("aggregator.id");
        return new AggregatorConfig(v.integer("ingest.port"),
                Mode.of(v.string("aggregator.mode")),
                v.millis("flush.interval.ms"), bufferCells(v.integer("buffer.max.cells"), Runtime.getRuntime().maxMemory()), v.millis("ingest.block.ms"),
                v.millis("dayclose.poll.ms"), v.millis("heartbeat.interval.ms"), v.integer("dayclose.window.days"),
                id.isEmpty() ? defaultId() : id, v.integer("raw.writer.threads"), v.integer("raw.batch.max"),
                v.integer("ingest.queue.events"), v.integer("flush.batch.rows"), v.integer("flush.concurrency"),
                v.millis("hbase.timeout.ms"),
                Durability.valueOf(v.string("flush.durability").toUpperCase(java.util.Locale.ROOT)),
                v.integer("raw.dedup.filter.days"), v.integer("raw.dedup.filter.max.mb") * (1L << 20),
                v.millis("buffer.max.age.ms"), v.integer("aggregator.instances"), v.millis("flush.timeout.ms"),
                v.millis("spend.flush.ms"), v.string("ingest.advertised.url"));
    }

    /** The heap each counter cell of {@code buffer.max.cells}'s default is given (see {@link #bufferCells}). */
    static final long HEAP_BYTES_PER_BUFFER_CELL = 1024;
    /** The most cells the default gives, whatever the heap. */
    static final int DEFAULT_MAX_BUFFER_CELLS = 2_000_000;

    /**
     * {@code buffer.max.cells} in force: the setting, or for 0 (the default) one cell per KiB of
     * {@code maxHeapBytes}, from 1,000 to 2,000,000. Two generations of ~125-byte cells, the
     * writer totals and the flush's Puts then take well under half the heap. Measured on the
     * multi-host cluster (a 768 MB aggregator, a 200,000-event back-fill): 2,000,000 cells ran it
     * out of memory in each of three runs, 700,000 did not.
     */
    static int bufferCells(int setting, long maxHeapBytes) {
        if (setting != 0) {
            return setting;
        }
        return (int) Math.max(1_000, Math.min(DEFAULT_MAX_BUFFER_CELLS, maxHeapBytes / HEAP_BYTES_PER_BUFFER_CELL));
    }

    /** Defaults overridden by {@code overrides} only (no file, no environment): for tests and tools. */
    public static AggregatorConfig of(Map<String, String> overrides) {
        return from(DEF.withOverrides(overrides));
    }

    /** The base URL to advertise once the ingest server listens on {@code port}. */
    public String advertisedUrl(int boundPort) {
        if (!advertisedUrl.isEmpty()) {
            return advertisedUrl;
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostAddress();
        } catch (Exception e) {
            host = "127.0.0.1";
        }
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + boundPort;
    }

    static String defaultId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "localhost";
        }
        String id = (host + "-" + ManagementFactory.getRuntimeMXBean().getPid()).replaceAll("[^A-Za-z0-9_.:-]", "_");
        return id.length() > 64 ? id.substring(0, 64) : id;
    }
}
