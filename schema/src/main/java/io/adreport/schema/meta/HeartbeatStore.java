package io.adreport.schema.meta;

import static io.adreport.schema.meta.MetaTable.F;
import static io.adreport.schema.meta.MetaTable.instant;

import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Aggregator heartbeats in the meta table: liveness, the acknowledgements of closed days, and the
 * advertised live-counts address. Rows (family {@code m}):
 * <pre>
 * agg/ID           heartbeat (epoch ms); expiresAt (epoch ms): the instance promises its next
 *                  heartbeat before then, and is not waited for after it (a stopped instance
 *                  sets it to its stop time); instances (4-byte int): the aggregator.instances
 *                  it runs with; ack/YYYY-MM-DD (epoch ms) per day it has closed; live: the
 *                  base URL where it answers live-counts requests; beaconsRefused (8-byte long):
 *                  how many beacons its pixel has refused, across its restarts
 * </pre>
 * Thread-safe; one table per call over the shared {@link Connection}.
 */
public final class HeartbeatStore {
    private static final byte[] HEARTBEAT = Bytes.toBytes("heartbeat");
    private static final byte[] EXPIRES_AT = Bytes.toBytes("expiresAt");
    private static final byte[] INSTANCES = Bytes.toBytes("instances");
    private static final byte[] LIVE_URL = Bytes.toBytes("live");
    private static final byte[] BEACONS_REFUSED = Bytes.toBytes("beaconsRefused");
    private static final String ACK = "ack/";

    private final MetaTable meta;

    public HeartbeatStore(Connection connection, TableLayout layout, Clock clock) {
        this(connection, layout, clock, null);
    }

    /** As {@link #HeartbeatStore(Connection, TableLayout, Clock)}, with every call bounded by {@code operationTimeout}. */
    public HeartbeatStore(Connection connection, TableLayout layout, Clock clock, Duration operationTimeout) {
        this.meta = new MetaTable(connection, layout, clock, operationTimeout);
    }

    /** Records that aggregator {@code id} is alive and has stopped and flushed {@code closedDays}. */
    public void heartbeat(String id, Set<LocalDate> closedDays) {
        heartbeat(id, closedDays, null, 0);
    }

    /**
     * As {@link #heartbeat(String, Set)}, declaring that the next heartbeat comes within
     * {@code expiresIn} (null: no declaration, the reader's liveness window applies). An instance
     * that dies stops being waited for once it expires; {@code Duration.ZERO} retires it at once.
     * {@code instances} is its aggregator.instances setting (0: not declared).
     */
    public void heartbeat(String id, Set<LocalDate> closedDays, Duration expiresIn, int instances) {
        Put p = new Put(row(id));
        long now = meta.millis();
        p.addColumn(F, HEARTBEAT, Bytes.toBytes(now));
        if (expiresIn != null) {
            p.addColumn(F, EXPIRES_AT, Bytes.toBytes(now + expiresIn.toMillis()));
        }
        if (instances > 0) {
            p.addColumn(F, INSTANCES, Bytes.toBytes(instances));
        }
        for (LocalDate d : closedDays) {
            p.addColumn(F, Bytes.toBytes(ACK + d), Bytes.toBytes(now));
        }
        meta.put(p);
    }

    /**
     * Records where aggregator {@code id} answers live-counts requests (its ingest server's base
     * URL), in its heartbeat row; readers use it while the instance is live.
     */
    public void advertise(String id, String liveUrl) {
        Put p = new Put(row(id));
        p.addColumn(F, LIVE_URL, Bytes.toBytes(liveUrl));
        meta.put(p);
    }

    /**
     * Records that aggregator {@code id}'s pixel has refused {@code total} beacons (forged, expired,
     * replayed, for a paused campaign...), counted across its restarts.
     */
    public void beaconsRefused(String id, long total) {
        meta.put(new Put(row(id)).addColumn(F, BEACONS_REFUSED, Bytes.toBytes(total)));
    }

    /** The refused total aggregator {@code id} last recorded (0 when never). */
    public long beaconsRefused(String id) {
        try {
            byte[] v = meta.get(new Get(row(id)).addColumn(F, BEACONS_REFUSED)).getValue(F, BEACONS_REFUSED);
            return v == null || v.length != 8 ? 0 : Bytes.toLong(v);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The refused totals of every aggregator that ever recorded one, summed. */
    public long beaconsRefused() {
        long[] sum = {0};
        meta.scan(rows().addColumn(F, BEACONS_REFUSED), r -> {
            byte[] v = r.getValue(F, BEACONS_REFUSED);
            sum[0] += v == null || v.length != 8 ? 0 : Bytes.toLong(v);
        });
        return sum[0];
    }

    /** Aggregator {@code id}'s heartbeat row, or null when it has none. */
    public AggregatorState aggregator(String id) {
        try {
            Result r = meta.get(new Get(row(id)));
            return r.isEmpty() ? null : toAggregator(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public List<AggregatorState> aggregators() {
        List<AggregatorState> out = new ArrayList<>();
        meta.scan(rows(), r -> out.add(toAggregator(r)));
        return out;
    }

    /** Aggregator {@code id}'s heartbeat row key. */
    private static byte[] row(String id) {
        return Bytes.toBytes("agg/" + id);
    }

    /** A scan of every aggregator's heartbeat row. */
    private static Scan rows() {
        return new Scan().withStartRow(Bytes.toBytes("agg/")).withStopRow(Bytes.toBytes("agg0"));
    }

    private static AggregatorState toAggregator(Result r) {
        Set<LocalDate> closed = new HashSet<>();
        for (byte[] q : r.getFamilyMap(F).keySet()) {
            String name = Bytes.toString(q);
            if (name.startsWith(ACK)) {
                closed.add(LocalDate.parse(name.substring(ACK.length())));
            }
        }
        byte[] instances = r.getValue(F, INSTANCES);
        byte[] liveUrl = r.getValue(F, LIVE_URL);
        return new AggregatorState(Bytes.toString(r.getRow()).substring(4), instant(r.getValue(F, HEARTBEAT)), closed,
                instant(r.getValue(F, EXPIRES_AT)), instances == null || instances.length != 4 ? 0 : Bytes.toInt(instances),
                liveUrl == null ? null : Bytes.toString(liveUrl));
    }
}
