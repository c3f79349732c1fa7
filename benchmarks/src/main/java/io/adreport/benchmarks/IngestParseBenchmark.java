package io.adreport.benchmarks;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.event.EventRejected;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Threads;

/**
 * Reading one ingest request body of 1,000 NDJSON events ({@link LoadEvents} traffic: impressions
 * with a device to hash, clicks, conversions, replays) into validated {@link Event}s, two ways:
 * {@code treePerLine}, what ingest did before (split the body into lines, a parser and a
 * {@code JsonNode} tree per line, then {@link EventParser#parse(JsonNode)}), and {@code streamed},
 * what it does now (one token stream over the body, {@link EventParser#parse(JsonParser)} at
 * each value; the loop of the aggregator's {@code EventBody}, minus its line-number checks).
 * One operation = one body.
 *
 * <p>Run: {@code mvn -B -o -q package -pl benchmarks -am -DskipTests && benchmarks/run-jmh.sh IngestParseBenchmark}
 */
@Threads(1)
public class IngestParseBenchmark extends ThroughputBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    byte[] body;
    EventParser parser;

    @Setup(Level.Trial)
    public void setUp() {
        StringBuilder sb = new StringBuilder();
        LoadEvents.generate("b-", 1000, Instant.now(), 600, 1.1, 7, line -> sb.append(line).append('\n'));
        body = sb.toString().getBytes(StandardCharsets.UTF_8);
        parser = new EventParser(CubeLoader.defaultCube(), Clock.systemUTC(), Duration.ofDays(7),
                new DeviceHasher("benchmark-secret-0123456789".getBytes(StandardCharsets.UTF_8)));
    }

    @Benchmark
    public List<Event> treePerLine() throws IOException {
        List<Event> out = new ArrayList<>(1000);
        int start = 0;
        while (start <= body.length) {
            int end = start;
            while (end < body.length && body[end] != '\n') {
                end++;
            }
            if (end > start) {
                try (JsonParser p = JSON.getFactory().createParser(body, start, end - start)) {
                    JsonNode node = JSON.readTree(p);
                    if (p.nextToken() != null) {
                        throw new IllegalStateException("two values on a line");
                    }
                    out.add(parser.parse(node));
                } catch (EventRejected e) {
                    throw new IllegalStateException(e);
                }
            }
            start = end + 1;
        }
        return out;
    }

    @Benchmark
    public List<Event> streamed() throws IOException {
        List<Event> out = new ArrayList<>(1000);
        try (JsonParser p = JSON.getFactory().createParser(body)) {
            while (p.nextToken() != null) {
                int line = p.currentTokenLocation().getLineNr();
                try {
                    out.add(parser.parse(p));
                } catch (EventRejected e) {
                    throw new IllegalStateException(e);
                }
                if (p.currentTokenLocation().getLineNr() != line) {
                    throw new IllegalStateException("a value over two lines");
                }
            }
        }
        return out;
    }

    /** The same events either way. */
    public static void main(String[] args) throws IOException {
        IngestParseBenchmark b = new IngestParseBenchmark();
        b.setUp();
        List<Event> a = b.treePerLine();
        List<Event> s = b.streamed();
        System.out.println(a.size() + " events, equal: " + a.equals(s));
    }
}
