package io.adreport.benchmarks.serving;

import io.adreport.benchmarks.HarnessOptions;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.hbase.HBaseEndpoint;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.table.TableLayout;
import io.adreport.serving.check.ProfileGets;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;

/**
 * The serving floor on a real cluster, in its own process (scripts/cluster/serving.sh runs it on
 * the edge host, where wrk runs too): {@code load} writes the benchmark's device profiles
 * ({@link ProfileFixture}), compacts and warms the table; {@code gets} reads them closed-loop
 * through the HBase client as a check reads them, without HTTP, JSON or cap logic: the bare
 * profile Get, or ({@code --filtered true}) the Get a check sends for the benchmark's campaigns. Its
 * line gives this process's own CPU per Get, the load generator's share of the cores.
 *
 * <pre>
 *   ServingFloor load --devices N [--campaigns 50] [--prefix sb] [--namespace NS]
 *   ServingFloor gets --devices N --seconds S [--clients 8] [--filtered true] [--campaigns 50] [--prefix sb] [--namespace NS]
 *                     [--warmup S --ready FILE --go FILE]
 * </pre>
 *
 * With {@code --warmup}, the same Gets run that long first (this JVM's compiler), then the file
 * {@code --ready} is created and the measured run starts once {@code --go} exists: the script
 * takes its CPU snapshot of the cluster in between, so the warm-up is in neither.
 *
 * HBase is the one {@code HBASE_CONF_DIR} names; devices are hashed with
 * {@code ADREPORT_DEVICE_HASH_SECRET}, as the cluster's services hash them.
 */
public final class ServingFloor {
    private ServingFloor() {
    }

    public static void main(String[] args) throws Exception {
        String usage = "usage: ServingFloor load|gets --devices N [--seconds S] [--clients C] [--filtered true]"
                + " [--campaigns N] [--prefix P] [--namespace NS] [--warmup S --ready FILE --go FILE]";
        if (args.length == 0 || !(args[0].equals("load") || args[0].equals("gets"))) {
            System.err.println(usage);
            System.exit(2);
        }
        Map<String, String> o = HarnessOptions.parse(Arrays.copyOfRange(args, 1, args.length), usage);
        int devices = Integer.parseInt(o.getOrDefault("devices", "100000"));
        int campaignCount = Integer.parseInt(o.getOrDefault("campaigns", "50"));
        List<String> campaigns = ProfileFixture.campaigns(o.getOrDefault("prefix", "sb"), campaignCount);
        TableLayout layout = new TableLayout(CubeLoader.defaultCube(), o.getOrDefault("namespace", CubeLoader.defaultCube().name()));
        String secret = System.getenv("ADREPORT_DEVICE_HASH_SECRET");
        if (secret == null || secret.isEmpty()) {
            throw new IllegalStateException("ADREPORT_DEVICE_HASH_SECRET: required, the cluster's device-hash secret");
        }
        DeviceHasher hasher = new DeviceHasher(secret.getBytes(StandardCharsets.UTF_8));
        try (Connection connection = ConnectionFactory.createConnection(HBaseEndpoint.configuration(Path.of("no-local-stack")))) {
            if (args[0].equals("load")) {
                long t0 = System.nanoTime();
                ProfileFixture.Loaded loaded = ProfileFixture.load(connection, layout, hasher, devices, campaigns, Instant.now());
                double loadS = (System.nanoTime() - t0) / 1e9;
                ProfileFixture.compact(connection.getAdmin(), layout.profilesTable());
                System.out.printf("profiles: %,d devices (%,d with views), %,d view cells, %,d segment cells loaded in %.1f s;"
                                + " compacted; %,d rows scanned into the block cache%n", devices, loaded.devicesWithViews(), loaded.views(),
                        loaded.segments(), loadS, ProfileFixture.warm(connection, layout.profilesTable()));
                return;
            }
            List<byte[]> prefixes = ProfileFixture.viewPrefixes(campaigns);
            boolean filtered = Boolean.parseBoolean(o.getOrDefault("filtered", "false"));
            Function<byte[], Get> get = filtered ? row -> ProfileGets.check(row, prefixes) : Get::new;
            ProfileKey keys = new ProfileKey(layout.cube().saltBuckets());
            int clients = Integer.parseInt(o.getOrDefault("clients", "8"));
            Duration d = Duration.ofSeconds(Long.parseLong(o.getOrDefault("seconds", "10")));
            ClosedLoop.Call call = rng -> {
                byte[] row = keys.row(hasher.hash(ProfileFixture.device(rng.nextInt(devices))));
                try (Table t = connection.getTable(layout.profilesTable())) {
                    t.get(get.apply(row));
                }
            };
            long warmup = Long.parseLong(o.getOrDefault("warmup", "0"));
            if (warmup > 0) {
                ClosedLoop.run(clients, Duration.ofSeconds(warmup), call);
                java.nio.file.Files.writeString(Path.of(o.getOrDefault("ready", "floor.ready")), "warm\n");
                Path go = Path.of(o.getOrDefault("go", "floor.go"));
                while (!java.nio.file.Files.exists(go)) {
                    Thread.sleep(10);
                }
            }
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            String line = ClosedLoop.run(clients, d, call);
            long requests = Long.parseLong(line.substring(0, line.indexOf(' ')).replace(",", ""));
            System.out.printf("%s; this process %.1f µs CPU per Get (%s)%n", line, (os.getProcessCpuTime() - cpu0) / 1e3 / requests,
                    filtered ? "the check's filtered Get" : "bare Get");
        }
    }
}
