package io.adreport.testkit;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.client.Connection;

/**
 * An HBase {@link Connection} on which every call parks, as a caller does on the connection's
 * region-lookup lock while another thread waits out a meta lookup during an HBase outage. A parked
 * call returns only when interrupted (then it throws) or when the test {@linkplain #release()
 * releases} it (then it fails with an IOException). {@code close}, {@code isClosed} and
 * {@code isAborted} answer at once.
 *
 * <p>Made over a real connection ({@link #HungConnection(Connection)}), it passes every call
 * through until the test calls {@link #hang()}: a region server that stops in the middle of a run.
 */
public final class HungConnection implements AutoCloseable {
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger parked = new AtomicInteger();
    private final Connection connection;
    private volatile Connection healthy;

    /** A connection hung from the start. */
    public HungConnection() {
        this(null);
    }

    /** A connection that passes calls to {@code healthy} until {@link #hang()} (null: hung from the start). */
    public HungConnection(Connection healthy) {
        this.healthy = healthy;
        this.connection = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Connection through = this.healthy;
                    if (through != null && !method.getName().equals("close")) {
                        try {
                            return method.invoke(through, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                    switch (method.getName()) {
                        case "close", "abort":
                            return null;
                        case "isClosed", "isAborted":
                            return false;
                        case "toString":
                            return "a hung HBase connection";
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            parked.incrementAndGet();
                            released.await(); // interrupted: the caller gave up on it
                            throw new IOException("a hung connection was released: " + method.getName());
                    }
                });
    }

    /** The connection whose calls park. */
    public Connection connection() {
        return connection;
    }

    /** From now on every call parks (a connection made over a real one stops passing calls on). */
    public void hang() {
        healthy = null;
    }

    /** Calls that parked so far. */
    public int parked() {
        return parked.get();
    }

    /** Lets every parked call and every later one fail at once. */
    public void release() {
        released.countDown();
    }

    @Override
    public void close() {
        release();
    }
}
