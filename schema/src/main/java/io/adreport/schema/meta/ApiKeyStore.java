package io.adreport.schema.meta;

import static io.adreport.schema.meta.MetaTable.F;
import static io.adreport.schema.meta.MetaTable.instant;

import io.adreport.schema.table.TableLayout;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * API key hashes in the meta table. Rows (family {@code m}):
 * <pre>
 * key/SHA256HEX    role, createdAt (epoch ms), revokedAt (epoch ms, when revoked)
 * </pre>
 * Thread-safe; one table per call over the shared {@link Connection}.
 */
public final class ApiKeyStore {
    private static final byte[] ROLE = Bytes.toBytes("role");
    private static final byte[] CREATED_AT = Bytes.toBytes("createdAt");
    private static final byte[] REVOKED_AT = Bytes.toBytes("revokedAt");

    private final MetaTable meta;

    public ApiKeyStore(Connection connection, TableLayout layout, Clock clock) {
        this(connection, layout, clock, null);
    }

    /**
     * As {@link #ApiKeyStore(Connection, TableLayout, Clock)}, with every call bounded by
     * {@code operationTimeout} (null: the connection's default, which with HBase's retries can be
     * many minutes). A server that answers requests (the report API's key lookups) needs the bound:
     * without it a request waits out an HBase outage instead of failing fast with 503.
     */
    public ApiKeyStore(Connection connection, TableLayout layout, Clock clock, Duration operationTimeout) {
        this.meta = new MetaTable(connection, layout, clock, operationTimeout);
    }

    public void putKey(String hash, String role) {
        Put p = new Put(Bytes.toBytes("key/" + hash));
        p.addColumn(F, ROLE, Bytes.toBytes(role));
        p.addColumn(F, CREATED_AT, Bytes.toBytes(meta.millis()));
        meta.put(p);
    }

    public void revokeKey(String hash) {
        Put p = new Put(Bytes.toBytes("key/" + hash));
        p.addColumn(F, REVOKED_AT, Bytes.toBytes(meta.millis()));
        meta.put(p);
    }

    /** The key with {@code hash}, read under this store's deadline. */
    public Optional<KeyRecord> key(String hash) {
        return meta.withDeadline(() -> {
            Result r = meta.get(new Get(Bytes.toBytes("key/" + hash)));
            if (r.isEmpty() || r.getValue(F, ROLE) == null) {
                return Optional.empty();
            }
            return Optional.of(toKey(hash, r));
        });
    }

    public List<KeyRecord> keys() {
        List<KeyRecord> out = new ArrayList<>();
        meta.scan(new Scan().withStartRow(Bytes.toBytes("key/")).withStopRow(Bytes.toBytes("key0")), r -> {
            if (r.getValue(F, ROLE) != null) {
                out.add(toKey(Bytes.toString(r.getRow()).substring(4), r));
            }
        });
        return out;
    }

    private static KeyRecord toKey(String hash, Result r) {
        return new KeyRecord(hash, Bytes.toString(r.getValue(F, ROLE)), instant(r.getValue(F, CREATED_AT)),
                instant(r.getValue(F, REVOKED_AT)));
    }
}
