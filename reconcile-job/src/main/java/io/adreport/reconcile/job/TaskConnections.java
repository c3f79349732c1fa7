package io.adreport.reconcile.job;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * The HBase connection a task of the reconcile job reads and writes through.
 *
 * <p>On a cluster every task runs in its own JVM and opens its own connection. In the local job
 * runner the tasks run as threads of the submitting JVM, which already holds a connection to the
 * same cluster; opening one per task (a ZooKeeper session, the meta lookups of every table it
 * touches, its own thread pools) is most of what a task costs on an empty or small day, and two
 * map and two reduce tasks paid it one after another. {@link #share} registers the submitter's
 * connection for the lifetime of one job under a random token that it writes into the job's
 * configuration; a task whose configuration carries a token registered in this JVM borrows that
 * connection ({@link Lease#owned} false: the task does not close it), any other task opens its
 * own. A connection is thread-safe, so the tasks' parallel scans share it as HBase intends.
 *
 * <p>State: one process-wide map of token to connection, an entry per running local job,
 * removed when the job ends (the handle {@link #share} returns); nothing else is kept.
 */
public final class TaskConnections {
    /** Job setting: the token under which the submitting JVM shares its connection. */
    static final String TOKEN = "adreport.reconcile.local.connection";
    private static final Map<String, Connection> SHARED = new ConcurrentHashMap<>();

    private TaskConnections() {
    }

    /** A task's connection; {@link #close} closes it only when the task opened it. */
    public record Lease(Connection connection, boolean owned) implements Closeable {
        @Override
        public void close() throws IOException {
            if (owned) {
                connection.close();
            }
        }
    }

    /** The connection registered for {@code conf}'s job in this JVM, or a new one of the task's own. */
    public static Lease open(Configuration conf) throws IOException {
        String token = conf.get(TOKEN);
        Connection shared = token == null ? null : SHARED.get(token);
        if (shared != null && !shared.isClosed()) {
            return new Lease(shared, false);
        }
        return new Lease(ConnectionFactory.createConnection(conf), true);
    }

    /** A registration; {@link #close} ends it (when the job is over). */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Lends {@code connection} to the tasks of the job configured by {@code conf} (written into
     * it), until the returned registration is closed; a null connection lends nothing.
     */
    public static Registration share(Configuration conf, Connection connection) {
        if (connection == null) {
            return () -> { };
        }
        String token = UUID.randomUUID().toString();
        SHARED.put(token, connection);
        conf.set(TOKEN, token);
        return () -> SHARED.remove(token);
    }

    /** Connections lent right now (for tests). */
    static int lent() {
        return SHARED.size();
    }
}
