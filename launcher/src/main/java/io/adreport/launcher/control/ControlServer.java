package io.adreport.launcher.control;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stack's side of the {@link ControlSocket}: one thread accepts a connection, reads its
 * request, runs it with {@link Handler} while the output streams back, and writes the exit code.
 *
 * <p>Concurrency: requests run one at a time on the accepting thread (a second client waits in
 * the socket's backlog); what they run serialises with the stack's own work where it must (the
 * {@code Reconciler} is synchronized with the nightly scheduler). A client that goes away does not
 * stop a request already running: the output is dropped and the work completes, as a scheduled
 * run would.
 *
 * <p>Failure: a request the handler rejects answers its message and a non-zero exit; an error of
 * the socket itself ends only that connection.
 */
public final class ControlServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    private static final int MAX_REQUEST = 64 * 1024;

    /** Runs one command inside the stack. */
    public interface Handler {
        /** Runs {@code args}, printing to {@code out} (errors too: one stream reaches the client); returns the exit code. */
        int run(List<String> args, PrintStream out);
    }

    private static final long CLOSE_WAIT_MS = 2000;

    private final ServerSocketChannel server;
    private final Path socket;
    private final Handler handler;
    private final Thread thread;

    private ControlServer(ServerSocketChannel server, Path socket, Handler handler) {
        this.server = server;
        this.socket = socket;
        this.handler = handler;
        this.thread = new Thread(this::serve, "adreport-control");
        thread.setDaemon(true);
    }

    /**
     * Listens on the control socket of {@code dataDir}; empty (with a log line) when the socket
     * cannot be made there, in which case commands simply run in their own process.
     */
    public static Optional<ControlServer> start(Path dataDir, Handler handler) {
        Path socket = ControlSocket.path(dataDir);
        try {
            Optional<ServerSocketChannel> bound = ControlSocket.bind(dataDir);
            if (bound.isEmpty()) {
                LOG.info("no control socket: {} is longer than {} bytes (commands beside this stack run in their own process)",
                        socket, ControlSocket.MAX_PATH);
                return Optional.empty();
            }
            ControlServer s = new ControlServer(bound.get(), socket, handler);
            s.thread.start();
            return Optional.of(s);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("no control socket at {} (commands beside this stack run in their own process): {}", socket, e.toString());
            return Optional.empty();
        }
    }

    private void serve() {
        while (server.isOpen()) {
            try (SocketChannel client = server.accept()) {
                handle(client);
            } catch (AsynchronousCloseException e) {
                return; // closed
            } catch (IOException | RuntimeException e) {
                LOG.warn("control request failed: {}", e.toString());
            }
        }
    }

    private void handle(SocketChannel client) throws IOException {
        List<String> args = ControlSocket.arguments(ControlSocket.readLine(client, MAX_REQUEST));
        OutputStream raw = Channels.newOutputStream(client);
        PrintStream out = new PrintStream(raw, true, StandardCharsets.UTF_8);
        LOG.info("control request: {}", String.join(" ", args));
        int code;
        try {
            code = handler.run(args, out);
        } catch (RuntimeException e) {
            out.println("adreport: " + e);
            code = 1;
        }
        out.print(ControlSocket.TRAILER + code + "\n");
        out.flush();
        if (out.checkError()) {
            LOG.info("control client went away before the end of: {}", String.join(" ", args));
        }
    }

    /**
     * Stops listening. Closing the channel only signals the accepting thread; until that thread
     * has left its blocked {@code accept}, the kernel's listening socket lives on and can still
     * take a connection (a client then ran its command in a stack that had closed). So close
     * waits for the thread (bounded: a request being served may take longer) before it removes
     * the socket file.
     */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing the control socket: {}", e.toString());
        }
        if (Thread.currentThread() != thread) {
            try {
                thread.join(CLOSE_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                LOG.info("the control socket's thread still serves a request {} ms after close", CLOSE_WAIT_MS);
            }
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.debug("deleting {}: {}", socket, e.toString());
        }
    }
}
