package io.adreport.benchmarks.serving;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The serving phases' load from outside the serving JVM: {@code wrk} (closed loop, one request per
 * connection at a time, like {@link ClosedLoop}) with {@code serve-check.lua}, which posts a
 * body (a check or an ad request) for a random device of the loaded set. The script reads the
 * device count, the key and the body around the device id from a file written here, one file per
 * route. Every run's full output goes to
 * {@code target/serve-bench-wrk.log}; a run with any non-2xx answer or socket error is marked
 * INVALID in its summary line.
 */
final class Wrk {
    static final int THREADS = 2;
    private static final Pattern RESULT = Pattern.compile("WRK-RESULT ((?:\\w+=\\d+ ?)+)");
    private static final Path LOG = Path.of("target", "serve-bench-wrk.log");

    private final String version;
    private final URI url;
    private final Path script;
    private final Path params;

    private Wrk(String version, URI url, Path script, Path params) {
        this.version = version;
        this.url = url;
        this.script = script;
        this.params = params;
    }

    /**
     * The wrk runner for {@code url}, or null when {@code wrk} is not on the PATH.
     *
     * @param template the body with {@code %s} where the device id goes
     */
    static Wrk find(URI url, String key, String template, int devices) throws IOException, InterruptedException {
        String version;
        try {
            Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
            version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("wrk");
            p.waitFor();
        } catch (IOException e) {
            return null;
        }
        Path script = Path.of("target", "serve-check.lua").toAbsolutePath();
        try (InputStream in = Wrk.class.getResourceAsStream("serve-check.lua")) {
            Files.write(script, in.readAllBytes());
        }
        int at = template.indexOf("%s");
        String route = url.getPath().substring(url.getPath().lastIndexOf('/') + 1);
        Path params = Path.of("target", "serve-" + route + "-wrk.txt").toAbsolutePath();
        Files.writeString(params, devices + "\n" + key + "\n" + template.substring(0, at) + "\n" + template.substring(at + 2) + "\n");
        return new Wrk(version.trim(), url, script, params);
    }

    /** Starts the run log ({@code target/serve-bench-wrk.log}) afresh; every run appends to it. */
    static void clearLog() throws IOException {
        Files.deleteIfExists(LOG);
    }

    String version() {
        return version;
    }

    /**
     * One closed-loop run of {@code connections} connections for {@code d}; the summary line, with
     * the CPU {@code wrk} itself used per request (user + system, the shell's {@code times} after it
     * exits): the load generator's share of the two cores, which an in-process floor does not pay.
     */
    String run(int connections, Duration d) throws IOException, InterruptedException {
        return run(url, connections, d);
    }

    /** As {@link #run(int, Duration)}, against {@code target} (another server of the same request: a floor). */
    String run(URI target, int connections, Duration d) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", "wrk \"$@\"; s=$?; times; exit $s", "sh",
                "-t" + THREADS, "-c" + connections, "-d" + d.toSeconds() + "s", "--latency",
                "--timeout", "10s", "-s", script.toString(), target.toString(), "--", params.toString(), Integer.toString(connections))
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(d.toSeconds() + 60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("wrk failed: " + output);
        }
        Files.writeString(LOG, output + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Matcher m = RESULT.matcher(output);
        if (!m.find()) {
            throw new IllegalStateException("no WRK-RESULT line in: " + output);
        }
        Map<String, Long> r = new TreeMap<>();
        for (String kv : m.group(1).trim().split(" ")) {
            int eq = kv.indexOf('=');
            r.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
        long errors = r.get("connect") + r.get("read") + r.get("write") + r.get("timeout");
        // p50/p99 as recorded (serve-check.lua undoes wrk's coordinated-omission correction), as a
        // closed-loop floor records them; wrk's own corrected p99 beside them
        String line = String.format("%,d requests, %,.0f/s with %d connections, p50 %.2f ms, p99 %.2f ms, max %.1f ms, "
                        + "p99 as wrk corrects it %.2f ms%s; wrk %s",
                r.get("requests"), r.get("requests") / (r.get("duration_us") / 1e6), connections, r.get("recorded_p50_us") / 1e3,
                r.get("recorded_p99_us") / 1e3, r.get("max_us") / 1e3, r.get("p99_us") / 1e3,
                r.get("recorded").equals(r.get("requests")) ? "" : " (undoing it found " + r.get("recorded") + " samples)",
                cpuPerRequest(output, r.get("requests")));
        return r.get("non2xx") + errors == 0 ? line
                : "INVALID (" + r.get("non2xx") + " non-2xx answers, " + errors + " socket errors): " + line;
    }

    /** {@code times} prints the shell's own user and system time, then its children's: wrk's, the last such line. */
    private static final Pattern TIMES = Pattern.compile("(?m)^(\\d+)m([\\d.]+)s (\\d+)m([\\d.]+)s$");

    private static String cpuPerRequest(String output, long requests) {
        Matcher m = TIMES.matcher(output);
        double seconds = -1;
        while (m.find()) {
            seconds = Long.parseLong(m.group(1)) * 60 + Double.parseDouble(m.group(2)) + Long.parseLong(m.group(3)) * 60
                    + Double.parseDouble(m.group(4));
        }
        return seconds < 0 || requests == 0 ? "CPU not reported" : String.format("%.1f µs CPU per request", seconds * 1e6 / requests);
    }
}
