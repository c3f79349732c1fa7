package io.adreport.aggregator.store;

import io.adreport.schema.event.Event;
import io.adreport.schema.metrics.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raw rows this aggregator tried to store without learning whether it did, none of them counted.
 *
 * <h2>Why</h2>
 * A group commit's raw write can time out after the region server applied it (a handler that
 * outlasts the client's timeout, an answer lost on the way). Its events are answered 503 and not
 * counted. The client's retry then finds the rows stored: by the existence read (one aggregator)
 * or by a put-if-absent that is not applied (several). Without this record the retry answered
 * them duplicate and nobody counted them live: on a slow cluster 30–35% of a back-fill stayed out
 * of the live counters and the live spend until the nightly pass.
 *
 * <h2>How a row is settled</h2>
 * Each write attempt carries a token in the raw row ({@code e:a}, see
 * {@link io.adreport.schema.event.RawEventCodec#writerToken}). A row in doubt keeps the tokens of
 * the attempts that failed on it; it was stored by one of them, and so never counted, exactly when
 * the stored row holds one of those tokens. Whoever finds it so counts it once and removes it
 * here: a retry's group commit ({@link GroupCommit}, which reads the token) or the writers'
 * periodic check ({@link GroupCommit#settleInDoubt}) for rows nobody retried here. A row stored
 * with another token was stored (and counted) by another attempt: another instance, or one of ours
 * that succeeded, which removed the row from here when it counted it. Per row, these steps are
 * serialized by the group commit's in-flight claim: only the claim's holder touches its row here.
 *
 * <h2>Checks and bounds</h2>
 * A row is first checked {@link #SETTLE} after its failure; a row found absent is checked again
 * at growing intervals (a timed-out write may still be queued on the region server) and given up
 * {@link #GIVE_UP} after its first failure: its event was never stored and its client was told
 * so. At most {@link #MAX_ROWS} rows are held (their events, ~1 KB each); beyond that a failed
 * row is not recorded, counted as overflow, and left to the nightly pass, as before. The record
 * lives in memory: a crash loses it like it loses the live deltas not flushed yet.
 */
final class InDoubtRows {
    private static final Logger LOG = LoggerFactory.getLogger(InDoubtRows.class);
    static final int MAX_ROWS = 100_000;
    static final Duration SETTLE = Duration.ofSeconds(2);
    static final Duration GIVE_UP = Duration.ofMinutes(2);
    private static final long MAX_INTERVAL_NANOS = Duration.ofSeconds(30).toNanos();

    /** A row's uncounted event, what its attempts inherited by attribution, and their tokens. */
    record Doubt(RowId key, Event event, Map<String, String> inherited, long[] tokens, long sinceNanos, long nextCheckNanos) {
        boolean wrote(long token) {
            for (long t : tokens) {
                if (t == token) {
                    return true;
                }
            }
            return false;
        }

        Doubt with(long token, long nextCheck) {
            long[] more = Arrays.copyOf(tokens, tokens.length + 1);
            more[tokens.length] = token;
            return new Doubt(key, event, inherited, more, sinceNanos, nextCheck);
        }
    }

    private final ConcurrentHashMap<RowId, Doubt> rows = new ConcurrentHashMap<>();
    private final Metrics.Counter counted;
    private final Metrics.Counter otherWriter;
    private final Metrics.Counter storedAgain;
    private final Metrics.Counter neverStored;
    private final Metrics.Counter overflow;

    InDoubtRows(Metrics registry) {
        String help = "Raw rows whose write had an unknown outcome, by how they were settled";
        counted = registry.counter("adreport_raw_in_doubt_settled_total", help, "outcome", "counted");
        otherWriter = registry.counter("adreport_raw_in_doubt_settled_total", help, "outcome", "other_writer");
        storedAgain = registry.counter("adreport_raw_in_doubt_settled_total", help, "outcome", "stored_again");
        neverStored = registry.counter("adreport_raw_in_doubt_settled_total", help, "outcome", "never_stored");
        overflow = registry.counter("adreport_raw_in_doubt_settled_total", help, "outcome", "overflow");
        registry.gauge("adreport_raw_in_doubt_rows", "Raw rows written with an unknown outcome and not counted yet", rows::size);
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    int size() {
        return rows.size();
    }

    boolean holds(RowId key) {
        return rows.containsKey(key);
    }

    /** An attempt with {@code token} on {@code key} failed with an unknown outcome (the caller holds the row's claim). */
    void failed(RowId key, Event event, Map<String, String> inherited, long token, long nowNanos) {
        long next = nowNanos + SETTLE.toNanos();
        Doubt d = rows.get(key);
        if (d != null) {
            rows.put(key, d.with(token, next));
        } else if (rows.size() >= MAX_ROWS) {
            if (overflow.get() == 0) {
                LOG.warn("{} raw rows in doubt: further ones are left to the nightly pass", MAX_ROWS);
            }
            overflow.inc();
        } else {
            rows.put(key, new Doubt(key, event, inherited, new long[] {token}, nowNanos, next));
        }
    }

    /** Puts back a row taken by {@link #found} whose counting did not happen (its group failed). */
    void restore(Doubt d) {
        rows.put(d.key(), d);
    }

    /**
     * The row is stored with {@code storedToken}: returns its doubt, removed, when one of its failed
     * attempts stored it (count it now); otherwise null, and any doubt of the row is removed
     * (another attempt stored and counted it).
     */
    Doubt found(RowId key, long storedToken) {
        Doubt d = rows.remove(key);
        if (d == null) {
            return null;
        }
        if (d.wrote(storedToken)) {
            counted.inc();
            return d;
        }
        otherWriter.inc();
        return null;
    }

    /** This process just stored and counted {@code key} in a new attempt: the earlier ones are settled. */
    void storedAgain(RowId key) {
        if (rows.remove(key) != null) {
            storedAgain.inc();
        }
    }

    /** Up to {@code max} rows whose check is due ({@code all}: every row, as on shutdown). */
    List<Doubt> due(long nowNanos, boolean all, int max) {
        List<Doubt> out = new ArrayList<>();
        for (Doubt d : rows.values()) {
            if (out.size() >= max) {
                break;
            }
            if (all || d.nextCheckNanos() - nowNanos <= 0) {
                out.add(d);
            }
        }
        return out;
    }

    /**
     * The row was not found stored: checked again later, or given up {@link #GIVE_UP} after its
     * first failure (returns false: the event was never stored).
     */
    boolean absent(Doubt d, long nowNanos) {
        long age = nowNanos - d.sinceNanos();
        if (age >= GIVE_UP.toNanos()) {
            rows.remove(d.key(), d);
            neverStored.inc();
            return false;
        }
        later(d, nowNanos, Math.min(MAX_INTERVAL_NANOS, Math.max(SETTLE.toNanos(), age)));
        return true;
    }

    /** The check could not read the row: checked again after {@link #SETTLE}. */
    void unread(Doubt d, long nowNanos) {
        later(d, nowNanos, SETTLE.toNanos());
    }

    private void later(Doubt d, long nowNanos, long interval) {
        rows.replace(d.key(), d, new Doubt(d.key(), d.event(), d.inherited(), d.tokens(), d.sinceNanos(), nowNanos + interval));
    }
}
