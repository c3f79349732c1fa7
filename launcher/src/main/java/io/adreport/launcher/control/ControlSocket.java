package io.adreport.launcher.control;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The local stack's control socket: a Unix domain socket in the data directory through which a
 * command of {@code bin/adreport} run beside {@code bin/adreport local} has the stack's warm
 * process do its work, instead of starting HBase and Hadoop clients, a MapReduce runner and a JIT
 * of its own. Today it carries {@code reconcile} ({@link ControlServer}): a second JVM spends ~10
 * CPU seconds starting up before it reads a row, the stack has done that already.
 *
 * <p><b>Who may use it.</b> The socket lives in {@code DATA/run/}, a directory only the stack's
 * user may enter (mode 700), like the key and secret files beside it; nothing listens on the
 * network. A stale socket (the stack died) refuses the connection and the command runs in its own
 * process as before.
 *
 * <p><b>Protocol.</b> One request per connection: the command's arguments, each followed by a NUL
 * byte, then a newline. The answer is the command's output as it is printed, then a trailer line
 * {@code NUL "exit=" code}. A connection that ends without the trailer means the stack went away:
 * the client says so and fails.
 */
public final class ControlSocket {
    /** The socket's place in the data directory. */
    public static final String DIRECTORY = "run";
    public static final String FILE = "control.sock";
    /** Unix domain socket paths are limited to 107 bytes on Linux. */
    static final int MAX_PATH = 107;
    static final String TRAILER = "\0exit=";

    private ControlSocket() {
    }

    /** The socket of the stack whose data directory is {@code dataDir}. */
    public static Path path(Path dataDir) {
        return dataDir.toAbsolutePath().normalize().resolve(DIRECTORY).resolve(FILE);
    }

    /** Whether {@code socket} can be a Unix domain socket's path here. */
    static boolean usable(Path socket) {
        return socket.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_PATH;
    }

    /** Binds the socket of {@code dataDir} (the directory made private first); empty when the path is too long. */
    static Optional<ServerSocketChannel> bind(Path dataDir) throws IOException {
        Path socket = path(dataDir);
        if (!usable(socket)) {
            return Optional.empty();
        }
        Path dir = socket.getParent();
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Files.deleteIfExists(socket); // a previous stack's; one stack per data directory (the embedded HBase holds its lock)
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        return Optional.of(server);
    }

    /** Connects to the stack of {@code dataDir}; empty when none answers there. */
    static Optional<SocketChannel> connect(Path dataDir) {
        Path socket = path(dataDir);
        if (!usable(socket) || !Files.exists(socket)) {
            return Optional.empty();
        }
        try {
            return Optional.of(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
        } catch (IOException e) {
            return Optional.empty(); // a stale socket: its stack is gone
        }
    }

    /** The request line for {@code args}. */
    static byte[] request(List<String> args) {
        StringBuilder b = new StringBuilder();
        for (String a : args) {
            if (a.indexOf('\0') >= 0 || a.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("an argument holds a NUL or newline character");
            }
            b.append(a).append('\0');
        }
        return b.append('\n').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The arguments of a request line (without its newline). */
    static List<String> arguments(String line) {
        if (line.isEmpty()) {
            return List.of();
        }
        if (!line.endsWith("\0")) {
            throw new IllegalArgumentException("a control request ends each argument with NUL");
        }
        return new ArrayList<>(Arrays.asList(line.substring(0, line.length() - 1).split("\0", -1)));
    }

    /** Reads one request line of at most {@code max} bytes from {@code channel}. */
    static String readLine(SocketChannel channel, int max) throws IOException {
        var in = Channels.newInputStream(channel);
        var bytes = new java.io.ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (bytes.size() >= max) {
                throw new IOException("control request longer than " + max + " bytes");
            }
            bytes.write(c);
        }
        if (c == -1) {
            throw new IOException("control request ended before its newline");
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
