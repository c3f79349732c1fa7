package io.adreport.schema.hbase;

import io.adreport.schema.threads.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;

/**
 * Short-lived {@link Table}s with their own operation and RPC timeouts, all sharing one thread
 * pool.
 *
 * <p>Why a shared pool: {@code Connection.getTableBuilder(name, null)} gives each Table a thread
 * pool of its own (HBase's {@code HTable.getDefaultExecutor}), which starts a thread for the
 * Table's first scan or batch call and shuts down when the Table closes. A Table opened per use
 * then costs a thread start and stop per scan or batch: a profile of the report API found ~2,100
 * thread starts in 2.5 minutes of top-N requests, one per request for its day marks, and ingest
 * opens a Table per group commit. {@code Connection.getTable(name)} shares the connection's pool,
 * but takes no timeouts; a Table built here takes both and shares this one pool.
 *
 * <p>The pool: daemon threads, reused while busy work keeps them (an idle one ends after 60 s),
 * at most {@link #MAX_THREADS}; a call that finds them all busy runs its task on its own thread
 * (back-pressure, never a rejection). Its tasks are the blocking client's per-server batch
 * calls and scanner calls, each bounded by its Table's timeouts.
 */
public final class TimedTables {
    /** As HBase's own connection pool ({@code hbase.hconnection.threads.max}'s default). */
    private static final int MAX_THREADS = 256;

    private static final ExecutorService POOL = pool();

    private TimedTables() {
    }

    /**
     * A Table of {@code connection} whose operations give up after {@code operationTimeout} and
     * each RPC after {@code rpcTimeout}; the caller closes it (closing leaves the pool running).
     */
    public static Table open(Connection connection, TableName name, Duration operationTimeout, Duration rpcTimeout) {
        return connection.getTableBuilder(name, POOL)
                .setOperationTimeout(millis(operationTimeout))
                .setRpcTimeout(millis(rpcTimeout))
                .build();
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }

    private static ExecutorService pool() {
        return new ThreadPoolExecutor(0, MAX_THREADS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                DaemonThreads.numbered("adreport-hbase"), new ThreadPoolExecutor.CallerRunsPolicy());
    }
}
