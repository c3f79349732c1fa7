package io.adreport.launcher.control;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The command's side of the {@link ControlSocket}: sends the arguments to the stack of a data
 * directory, copies the output as it comes, and returns the stack's exit code.
 */
public final class ControlClient {
    private ControlClient() {
    }

    /**
     * Runs {@code args} in the local stack of {@code dataDir}; empty when no stack listens there
     * (the caller runs the command itself).
     *
     * @throws IOException when the stack went away before it answered the exit code
     */
    public static Optional<Integer> run(Path dataDir, List<String> args, PrintStream out) throws IOException {
        Optional<SocketChannel> connected = ControlSocket.connect(dataDir);
        if (connected.isEmpty()) {
            return Optional.empty();
        }
        try (SocketChannel channel = connected.get()) {
            ByteBuffer request = ByteBuffer.wrap(ControlSocket.request(args));
            while (request.hasRemaining()) {
                channel.write(request);
            }
            return Optional.of(copy(Channels.newInputStream(channel), out));
        }
    }

    /** Copies the answer to {@code out} up to its trailer; returns the exit code the trailer names. */
    static int copy(InputStream in, PrintStream out) throws IOException {
        byte[] buf = new byte[8192];
        ByteArrayOutputStream trailer = null;
        int n;
        while ((n = in.read(buf)) != -1) {
            int from = 0;
            if (trailer == null) {
                int nul = indexOf(buf, n, (byte) 0);
                if (nul < 0) {
                    out.write(buf, 0, n);
                    out.flush();
                    continue;
                }
                out.write(buf, 0, nul);
                out.flush();
                trailer = new ByteArrayOutputStream();
                from = nul;
            }
            trailer.write(buf, from, n - from);
        }
        String t = trailer == null ? "" : trailer.toString(StandardCharsets.UTF_8).stripTrailing();
        if (!t.startsWith(ControlSocket.TRAILER)) {
            throw new IOException("the local stack closed the control connection before the command ended (see its log)");
        }
        try {
            return Integer.parseInt(t.substring(ControlSocket.TRAILER.length()));
        } catch (NumberFormatException e) {
            throw new IOException("the local stack answered a malformed exit code: " + t.substring(1), e);
        }
    }

    private static int indexOf(byte[] buf, int n, byte b) {
        for (int i = 0; i < n; i++) {
            if (buf[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
