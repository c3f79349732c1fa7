package io.adreport.launcher.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local stack's control socket on a real Unix domain socket, with a handler of the test's own. */
class ControlSocketTest {

    @Test
    void aCommandRunsInTheServerAndItsOutputAndExitCodeReachTheClient(@TempDir Path data) throws Exception {
        List<List<String>> seen = new CopyOnWriteArrayList<>();
        try (ControlServer server = ControlServer.start(data, (args, out) -> {
            seen.add(args);
            out.println("first line");
            out.print("no newline, then ünïcode");
            return 7;
        }).orElseThrow()) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("run"))),
                    "only the stack's user may reach the socket");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<String> args = List.of("reconcile", "--day", "2026-11-30", "an argument with spaces", "");
            Optional<Integer> code = ControlClient.run(data, args, new PrintStream(out, true, StandardCharsets.UTF_8));
            assertEquals(Optional.of(7), code);
            assertEquals("first line\nno newline, then ünïcode", out.toString(StandardCharsets.UTF_8));
            assertEquals(List.of(args), seen, "the arguments arrive exactly, empty ones included");

            // one after another on the same socket
            assertEquals(Optional.of(7), ControlClient.run(data, List.of("again"), new PrintStream(new ByteArrayOutputStream())));
            assertEquals(2, seen.size());
        }
        assertFalse(Files.exists(ControlSocket.path(data)), "closing removes the socket");
        assertEquals(Optional.empty(), ControlClient.run(data, List.of("reconcile"), System.out), "no stack: the command runs itself");
    }

    @Test
    void aStaleSocketOrATooLongPathMeansNoStack(@TempDir Path data) throws Exception {
        ControlServer server = ControlServer.start(data, (args, out) -> 0).orElseThrow();
        Path socket = ControlSocket.path(data);
        // a stack killed with -9 leaves its socket file behind: nobody accepts on it
        Path kept = data.resolve("kept.sock");
        Files.createLink(kept, socket);
        server.close();
        Files.move(kept, socket);
        assertTrue(Files.exists(socket));
        assertEquals(Optional.empty(), ControlClient.run(data, List.of("reconcile"), System.out));

        Path deep = data.resolve("d".repeat(120));
        Files.createDirectories(deep);
        assertEquals(Optional.empty(), ControlServer.start(deep, (args, out) -> 0), "a path too long for a socket: none");
        assertEquals(Optional.empty(), ControlClient.run(deep, List.of("reconcile"), System.out));
    }

    @Test
    void aClosedServerTakesNoCommandEvenWhileItsThreadIsSlowToLeaveAccept(@TempDir Path data) throws Exception {
        // close() used to return while the accepting thread was still blocked in accept(): a client
        // reaching the socket file then (here through a kept link) ran its command. Busy threads make
        // the accepting thread slow to see the close, as on a loaded machine (before the fix: 11 of 300).
        Thread[] busy = new Thread[3];
        for (int i = 0; i < busy.length; i++) {
            busy[i] = new Thread(() -> {
                long x = 0;
                while (!Thread.currentThread().isInterrupted()) {
                    x += System.nanoTime() & 7;
                }
            });
            busy[i].setDaemon(true);
            busy[i].start();
        }
        int accepted = 0;
        try {
            for (int i = 0; i < 300; i++) {
                Path dir = Files.createDirectories(data.resolve("d" + i));
                ControlServer server = ControlServer.start(dir, (args, out) -> 0).orElseThrow();
                Path kept = dir.resolve("kept.sock");
                Files.createLink(kept, ControlSocket.path(dir));
                server.close();
                Files.move(kept, ControlSocket.path(dir));
                if (ControlClient.run(dir, List.of("reconcile"), new PrintStream(new ByteArrayOutputStream())).isPresent()) {
                    accepted++;
                }
            }
        } finally {
            for (Thread t : busy) {
                t.interrupt();
            }
        }
        assertEquals(0, accepted, "commands run by a closed server");
    }

    @Test
    void aHandlerThatThrowsAnswersItsErrorAndANonZeroExit(@TempDir Path data) throws Exception {
        try (ControlServer server = ControlServer.start(data, (args, out) -> {
            throw new IllegalStateException("boom");
        }).orElseThrow()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(Optional.of(1), ControlClient.run(data, List.of("x"), new PrintStream(out, true, StandardCharsets.UTF_8)));
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("boom"), out.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void anAnswerWithoutItsTrailerIsAnErrorNotASuccess() {
        IOException e = assertThrows(IOException.class, () -> ControlClient.copy(
                new ByteArrayInputStream("half an answer".getBytes(StandardCharsets.UTF_8)), new PrintStream(new ByteArrayOutputStream())));
        assertTrue(e.getMessage().contains("closed the control connection"), e.getMessage());
    }

    @Test
    void requestsKeepEveryArgumentAndRefuseSeparatorsInside() {
        List<String> args = List.of("a", "", "b c", "--set", "x=y");
        String line = new String(ControlSocket.request(args), StandardCharsets.UTF_8);
        assertEquals(args, ControlSocket.arguments(line.substring(0, line.length() - 1)));
        assertThrows(IllegalArgumentException.class, () -> ControlSocket.request(List.of("a\nb")));
    }
}
