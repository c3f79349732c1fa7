package io.adreport.report;

import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.ConfigDef.Type;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of the report API, validated once at start-up by {@link #DEF}, the only owner of their
 * rules.
 *
 * @param port             HTTP port of the API and dashboard
 * @param maxRowsScanned   counter rows one report may read before it is refused (a 400 naming
 *                         {@code from}): bounds the work and memory of one request
 * @param maxBuckets       time buckets one report may return
 * @param maxResultRows    result rows a report without {@code limit} may return
 * @param maxLimit         largest accepted {@code limit}
 * @param maxPointGets     largest multi-get for a fully fixed series; longer series read one
 *                         salt bucket by scan instead
 * @param queryThreads     threads of the bounded executor that runs salt-bucket scans and gets
 * @param queryQueue       queued read tasks beyond which the calling request thread runs the
 *                         task itself (back-pressure instead of an unbounded queue)
 * @param queryTimeout     how long one report may wait for its reads before it fails with 503
 * @param keyCache         how long an API key lookup (positive or negative) is cached; a
 *                         revocation takes effect within this time
 * @param keyCacheSize     most cached key lookups
 * @param keyLookup        deadline of one API key lookup in the meta table
 * @param keyStale         how long after it was last read a key's answer still serves while the
 *                         meta table does not answer its lookups (zero: never)
 * @param liveTimeout      deadline of each step of the live-counts exchange with the aggregators
 *                         (zero: reports read flushed counters only)
 */
public record ReportConfig(int port, long maxRowsScanned, int maxBuckets, int maxResultRows, int maxLimit,
                           int maxPointGets, int queryThreads, int queryQueue, Duration queryTimeout,
                           Duration keyCache, int keyCacheSize, Duration keyLookup, Duration keyStale,
                           Duration liveTimeout) {

    public static final ConfigDef DEF = new ConfigDef("Report API")
            .define("report.port", Type.INT, "8080", ConfigDef.between(0, 65535).noting("0: any free port"),
                    "HTTP port of the report API and dashboard")
            .define("report.max.rows.scanned", Type.LONG, "1000000", ConfigDef.atLeast(1000),
                    "Counter rows one report may read; a larger query is refused with 400")
            .define("report.max.buckets", Type.INT, "10000", ConfigDef.between(1, 1_000_000),
                    "Time buckets one report may return")
            .define("report.max.result.rows", Type.INT, "100000", ConfigDef.between(1, 10_000_000),
                    "Rows a report without limit may return")
            .define("report.max.limit", Type.INT, "10000", ConfigDef.between(1, 1_000_000),
                    "Largest accepted limit (top-N)")
            .define("report.max.point.gets", Type.INT, "5000", ConfigDef.between(1, 1_000_000),
                    "Largest multi-get for one fully fixed series; longer series scan their one salt bucket")
            .define("report.query.threads", Type.INT, "8", ConfigDef.between(1, 256),
                    "Threads that run salt-bucket scans and multi-gets in parallel")
            .define("report.query.queue", Type.INT, "256", ConfigDef.between(1, 100_000),
                    "Queued read tasks; beyond it the request thread runs the read itself")
            .define("report.query.timeout.ms", Type.DURATION_MS, "30000", ConfigDef.atLeast(100),
                    "How long one report may wait for its HBase reads (503 after)")
            .define("report.key.cache.ms", Type.DURATION_MS, "2000", ConfigDef.between(0, 60_000),
                    "API key lookups are cached this long, then read again in the background; "
                            + "a key revoked elsewhere stops working within it plus one lookup")
            .define("report.key.cache.size", Type.INT, "10000", ConfigDef.between(1, 1_000_000),
                    "Most cached API key lookups")
            .define("report.key.lookup.ms", Type.DURATION_MS, "1000", ConfigDef.between(10, 60_000),
                    "Deadline of one API key lookup in the meta table (at most report.query.timeout.ms)")
            .define("report.key.stale.ms", Type.DURATION_MS, "600000", ConfigDef.between(0, 86_400_000),
                    "While the meta table does not answer (its region server stopped or gone), a key's last known answer "
                            + "keeps serving this long after it was last read, so checks and reports go on; 0: fail with 503 at once")
            .define("report.live.timeout.ms", Type.DURATION_MS, "500", ConfigDef.between(0, 10_000).noting("0: off"),
                    "Reports add what each live aggregator has counted but not flushed yet (its live counts, asked over HTTP "
                            + "before and after the HBase read), so a report shows every event acknowledged before it was asked, "
                            + "whatever flush.interval.ms. This bounds each of the two asks; an aggregator that does not answer "
                            + "in time shows its counts as of its last flush. 0 turns live counts off");

    public static ReportConfig from(ConfigDef.Values v) {
        return new ReportConfig(v.integer("report.port"), v.longValue("report.max.rows.scanned"),
                v.integer("report.max.buckets"), v.integer("report.max.result.rows"), v.integer("report.max.limit"),
                v.integer("report.max.point.gets"), v.integer("report.query.threads"), v.integer("report.query.queue"),
                v.millis("report.query.timeout.ms"), v.millis("report.key.cache.ms"), v.integer("report.key.cache.size"),
                v.millis("report.key.lookup.ms"), v.millis("report.key.stale.ms"), v.millis("report.live.timeout.ms"));
    }

    /** Defaults with {@code overrides} applied (no environment), e.g. for tests and tools. */
    public static ReportConfig of(Map<String, String> overrides) {
        return from(DEF.withOverrides(overrides));
    }

    public static ReportConfig defaults() {
        return of(Map.of());
    }
}
