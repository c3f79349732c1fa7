package io.adreport.benchmarks;

import io.adreport.schema.time.UtcDay;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.rowkey.RawKey;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.io.BufferedReader;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * The fault scripts' checker: {@code FaultCheck ZK_PORT NAMESPACE DAY EVENTS_FILE REPORT_URL KEY}.
 * Every event of EVENTS_FILE (all acknowledged: the script checks that replay failed none) must
 * be in the raw table of DAY; the day's network totals from the report API must equal a recount
 * of the file (dedup by type and id, clicks attributed when their impression is in the file),
 * which shares no code with the product's counting. Lines with a negative costMicros are the
 * scripts' invalid events (rejected by ingest) and are skipped. Prints one line and exits 0 when both hold,
 * 1 otherwise. Uses the default ads cube.
 */
public final class FaultCheck {
    private static final ObjectMapper JSON = new ObjectMapper();

    private FaultCheck() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: FaultCheck ZK_PORT NAMESPACE DAY EVENTS_FILE REPORT_URL KEY");
            System.exit(2);
        }
        LocalDate day = LocalDate.parse(args[2]);
        Cube cube;
        try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            cube = CubeLoader.parse("ads.yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        TableLayout layout = new TableLayout(cube, args[1]);

        // The recount of the file.
        Map<String, JsonNode> events = new HashMap<>();
        long lines = 0;
        try (BufferedReader r = Files.newBufferedReader(Path.of(args[3]), StandardCharsets.UTF_8)) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                lines++;
                JsonNode e = JSON.readTree(line);
                if (e.path("costMicros").asLong(0) < 0) {
                    continue; // the scripts' invalid events: rejected by ingest, never stored
                }
                if (dayOf(e).equals(day)) {
                    events.putIfAbsent(e.get("type").asText() + "/" + e.get("id").asText(), e);
                }
            }
        }
        Map<String, Long> expected = new TreeMap<>();
        for (JsonNode e : events.values()) {
            switch (e.get("type").asText()) {
                case "impression" -> {
                    expected.merge("impressions", 1L, Long::sum);
                    expected.merge("spendMicros", e.path("costMicros").asLong(), Long::sum);
                }
                case "click" -> expected.merge(events.containsKey("impression/" + e.get("impressionId").asText())
                        ? "clicks" : "unattributedClicks", 1L, Long::sum);
                default -> { }
            }
        }
        expected.values().removeIf(v -> v == 0);

        // The raw table.
        Set<String> raw = new HashSet<>();
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", "localhost:" + args[0]);
        RowKeyCodec codec = new RowKeyCodec(cube);
        try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(layout.rawTable());
             ResultScanner rs = t.getScanner(new Scan())) {
            for (Result res : rs) {
                RawKey k = codec.parseRawKey(res.getRow());
                if (k.day().equals(day)) {
                    raw.add(k.type() + "/" + k.id());
                }
            }
        }
        Set<String> lost = new HashSet<>(events.keySet());
        lost.removeAll(raw);
        Set<String> extra = new HashSet<>(raw);
        extra.removeAll(events.keySet());

        // The counters, through the report API.
        String q = args[4] + "/v1/reports/network?from=" + day + "&to=" + day.plusDays(1)
                + "&granularity=day&metrics=impressions,clicks,spendMicros,unattributedClicks";
        HttpResponse<String> resp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(q))
                .header("Authorization", "Bearer " + args[5]).build(), HttpResponse.BodyHandlers.ofString());
        Map<String, Long> actual = new TreeMap<>();
        if (resp.statusCode() == 200) {
            for (JsonNode row : JSON.readTree(resp.body()).get("rows")) {
                row.get("metrics").fields().forEachRemaining(m -> {
                    if (m.getValue().isNumber() && m.getValue().asLong() != 0) {
                        actual.merge(m.getKey(), m.getValue().asLong(), Long::sum);
                    }
                });
            }
        }
        // Every missing id on stderr, so that a script can tell them from events of batches that were never acknowledged.
        lost.stream().sorted().forEach(id -> System.err.println("lost " + id));
        boolean exact = actual.equals(expected);
        System.out.printf("faultcheck %s: %,d lines, %,d distinct events of the day, raw rows %,d, lost %d%s, not sent %d, "
                        + "counters %s (expected %s, report %s)%n", day, lines, events.size(), raw.size(), lost.size(),
                lost.isEmpty() ? "" : " e.g. " + lost.stream().limit(3).toList(), extra.size(),
                exact ? "exact" : "NOT exact", expected, resp.statusCode() == 200 ? actual : resp.statusCode() + " " + resp.body());
        System.exit(lost.isEmpty() && extra.isEmpty() && exact ? 0 : 1);
    }

    private static LocalDate dayOf(JsonNode e) {
        JsonNode ts = e.get("ts");
        Instant t = ts.isNumber() ? Instant.ofEpochMilli(ts.asLong()) : OffsetDateTime.parse(ts.asText()).toInstant();
        return UtcDay.dateOf(t);
    }
}
