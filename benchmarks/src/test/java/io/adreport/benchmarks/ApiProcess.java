package io.adreport.benchmarks;

import io.adreport.schema.hbase.HBaseEndpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The report API as a cluster deployment runs it: {@code bin/adreport report-api} in its own JVM,
 * against the benchmark's HBase (a data directory whose {@code zk.port} names the mini cluster's
 * ZooKeeper, the way a running local stack is found), so that a latency benchmark can time the
 * API without the load generator's, the region server's and DuckDB's allocations and
 * collections in its heap. Needs the launcher built ({@code mvn -B -o -q package -DskipTests});
 * its output is kept in {@code target/api-process.log}.
 */
final class ApiProcess implements AutoCloseable {
    private static final Pattern PORT = Pattern.compile("adreport report API: port (\\d+)");

    private final Process process;
    private final int port;

    private ApiProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the API over {@code namespace} and waits (at most 3 minutes) until it listens. */
    static ApiProcess start(int zooKeeperPort, String namespace) throws Exception {
        Path launcher = Path.of("..", "bin", "adreport").toAbsolutePath().normalize();
        if (!Files.isRegularFile(Path.of("..", "launcher", "target", "classpath.txt"))) {
            throw new IllegalStateException("the launcher is not built: run `mvn -B -o -q package -DskipTests` first"
                    + " (or leave -Dtopn.api unset to serve from the benchmark's JVM)");
        }
        Path dataDir = Files.createDirectories(Path.of("target", "api-process-data"));
        Files.writeString(dataDir.resolve(HBaseEndpoint.ZK_PORT_FILE), Integer.toString(zooKeeperPort));
        Path log = Path.of("target", "api-process.log").toAbsolutePath();
        List<String> command = new ArrayList<>(List.of(launcher.toString(), "report-api", "--data-dir", dataDir.toString(),
                "--set", "hbase.namespace=" + namespace, "--set", "report.port=0"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("ADREPORT_SKIP_BUILD", "1");
        pb.environment().put("ADREPORT_DEVICE_HASH_SECRET", "benchmark-device-secret-0123456789");
        Process p = pb.start();
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                 var out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    out.write(line);
                    out.newLine();
                    out.flush();
                    Matcher m = PORT.matcher(line);
                    if (m.find()) {
                        listening.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                listening.completeExceptionally(e);
            }
            listening.completeExceptionally(new IllegalStateException("the report API exited before listening; see " + log));
        }, "api-process-output");
        pump.setDaemon(true);
        pump.start();
        try {
            return new ApiProcess(p, listening.get(3, TimeUnit.MINUTES));
        } catch (Exception e) {
            p.destroyForcibly();
            throw e;
        }
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy(); // SIGTERM: the service's shutdown hook stops the API and closes its connection
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
