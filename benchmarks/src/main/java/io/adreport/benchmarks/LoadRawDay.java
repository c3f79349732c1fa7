package io.adreport.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.event.RawEventCodec;
import io.adreport.schema.hbase.HBaseEndpoint;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;

/**
 * Writes an NDJSON file of events straight into the raw events table of a running local stack,
 * as the aggregator stores them (same parser, same device hash, same raw row), without counting
 * them live: {@code LoadRawDay DATA_DIR FILE [NAMESPACE]}. For benchmarks of the nightly pass on
 * days too large to post through ingest in the time at hand; the first reconcile of such a day
 * writes every counter cell and view, later ones find nothing to correct.
 */
public final class LoadRawDay {
    private LoadRawDay() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: LoadRawDay DATA_DIR FILE [NAMESPACE]");
            System.exit(2);
        }
        Path data = Path.of(args[0]);
        Cube cube = CubeLoader.defaultCube();
        TableLayout layout = new TableLayout(cube, args.length > 2 ? args[2] : cube.name());
        DeviceHasher hasher = new DeviceHasher(Files.readString(data.resolve("device.secret")).trim().getBytes(StandardCharsets.UTF_8));
        EventParser parser = new EventParser(cube, Clock.systemUTC(), Duration.ofDays(30), hasher);
        RawEventCodec codec = new RawEventCodec(new RowKeyCodec(cube));
        JsonFactory json = new JsonFactory();
        long n = 0;
        long start = System.nanoTime();
        try (Connection c = ConnectionFactory.createConnection(HBaseEndpoint.configuration(data));
             BufferedMutator out = c.getBufferedMutator(new BufferedMutatorParams(layout.rawTable()).writeBufferSize(8L << 20));
             BufferedReader in = Files.newBufferedReader(Path.of(args[1]), StandardCharsets.UTF_8)) {
            Instant arrival = Instant.now();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                try (JsonParser p = json.createParser(line)) {
                    p.nextToken();
                    Event e = parser.parse(p);
                    Put put = codec.toPut(e, arrival);
                    out.mutate(put.setDurability(Durability.ASYNC_WAL));
                    n++;
                }
            }
            out.flush();
        }
        System.err.printf("loaded %,d raw events from %s in %.1f s%n", n, args[1], (System.nanoTime() - start) / 1e9);
    }
}
