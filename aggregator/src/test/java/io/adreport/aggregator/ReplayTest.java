package io.adreport.aggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.client.replay.Replay;
import io.adreport.testkit.Datasets;
import io.adreport.testkit.Datasets.DataFile;
import io.adreport.testkit.Datasets.Format;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each test replays into its own time window and aggregator. The tests of a public format run on
 * its committed sample and on the public data set (see {@link Datasets}).
 */
@ExtendWith(HBaseExtension.class)
class ReplayTest {
    private final TestStack.Window w;
    private final Aggregator agg;

    ReplayTest(MiniHBase hbase) {
        w = TestStack.shared(hbase).window();
        agg = w.start(Map.of());
    }

    @AfterEach
    void stop() {
        agg.close();
    }

    @Test
    void replay_of_an_ndjson_file_reports_accepted_duplicates_and_rejected(@TempDir Path dir) throws Exception {
        Traffic traffic = new Traffic(21);
        List<Beacon> events = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            events.add(traffic.impression(w.now, Duration.ofHours(3)));
        }
        List<String> lines = new ArrayList<>();
        events.forEach(b -> lines.add(b.json()));
        events.subList(0, 30).forEach(b -> lines.add(b.json()));
        lines.add("{\"type\":\"impression\",\"id\":\"neg\",\"ts\":\"" + w.now + "\",\"costMicros\":-1}");
        Path file = dir.resolve("events.ndjson");
        Files.write(file, lines);

        Run run = replay(file.toString(), "--batch", "50", "--concurrency", "3");
        assertEquals(0, run.status, run.out + run.err);
        assertTrue(run.out.contains("accepted 300, duplicates 30, rejected 1"), run.out);
        assertTrue(run.out.contains("rejected 1 x costMicros: must be >= 0"), run.out);
        assertTrue(run.err.contains("100.0%"), "progress bar on stderr: " + run.err);
        assertTrue(run.out.matches("(?s).*request latency \\(\\d+ answered batches\\): p50 \\d+ ms, p99 \\d+ ms.*"), run.out);
    }

    static Stream<DataFile> avazu() {
        return Datasets.of(Format.AVAZU);
    }

    static Stream<DataFile> talkingData() {
        return Datasets.of(Format.TALKINGDATA);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("avazu")
    void replay_of_avazu_rows_posts_an_impression_per_row_and_a_click_per_clicked_row(DataFile data, @TempDir Path dir) throws Exception {
        List<String> all = Files.readAllLines(data.path(), StandardCharsets.UTF_8);
        List<String> rows = all.subList(0, Math.min(all.size(), 2001));
        Path file = dir.resolve("avazu-2k.csv");
        Files.write(file, rows);
        long impressions = rows.size() - 1;
        long clicks = rows.stream().skip(1).filter(r -> r.split(",")[1].equals("1")).count();

        Run run = replay(file.toString(), "--shift-to-now");
        assertEquals(0, run.status, run.out + run.err);
        assertTrue(run.out.contains("accepted " + String.format("%,d", impressions + clicks) + ", duplicates 0, rejected 0"), run.out);
        agg.flushNow();
        Map<String, Long> counters = w.counters();
        long networkImpressions = counters.entrySet().stream()
                .filter(e -> e.getKey().startsWith("network|day|") && e.getKey().endsWith("|impressions"))
                .mapToLong(Map.Entry::getValue).sum();
        long networkClicks = counters.entrySet().stream()
                .filter(e -> e.getKey().startsWith("network|day|") && e.getKey().endsWith("|clicks"))
                .mapToLong(Map.Entry::getValue).sum();
        assertEquals(impressions, networkImpressions);
        assertEquals(clicks, networkClicks);
    }

    /** TalkingData rows are clicks: each becomes an impression and its click, plus a conversion where the app was downloaded. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("talkingData")
    void replay_of_talkingdata_without_shift_explains_the_accept_window_and_with_shift_is_accepted(DataFile data) throws Exception {
        String file = data.path().toString();
        List<String> rows = Files.readAllLines(data.path(), StandardCharsets.UTF_8);
        List<String> first = rows.subList(1, Math.min(rows.size(), 201));
        long downloads = first.stream().map(r -> r.split(",", -1)).filter(f -> f[7].equals("1") && !f[6].isBlank()).count();
        long events = 2L * first.size() + downloads;

        Run old = replay(file, "--limit", String.valueOf(events));
        assertTrue(old.out.contains("rejected " + String.format("%,d", events) + " x ts: must not be older than the accept window"), old.out);
        assertTrue(old.out.contains("--shift-to-now"), old.out);

        Run shifted = replay(file, "--limit", String.valueOf(events), "--shift-to-now");
        assertEquals(0, shifted.status, shifted.out + shifted.err);
        assertTrue(shifted.out.contains("accepted " + String.format("%,d", events) + ", duplicates 0, rejected 0"), shifted.out);
    }

    @Test
    void a_malformed_line_fails_its_batch_only_and_is_located_in_the_file(@TempDir Path dir) throws Exception {
        Traffic traffic = new Traffic(22);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            lines.add(traffic.impression(w.now, Duration.ofHours(1)).json());
        }
        lines.set(27, "{\"type\":\"impression\",");
        Path file = dir.resolve("broken.ndjson");
        Files.write(file, lines);

        Run run = replay(file.toString(), "--batch", "10", "--concurrency", "1");
        assertEquals(1, run.status, run.out + run.err);
        assertTrue(run.out.contains("accepted 30, duplicates 0, rejected 0, failed 10 in 1 batches"), run.out);
        assertTrue(run.out.contains("HTTP 400 for events 21..30 of the file"), run.out);
        assertTrue(run.out.contains("line 8: malformed JSON"), run.out);
    }

    @Test
    void bad_flags_are_a_usage_error_naming_the_flag() {
        Run run = replay("x.ndjson", "--batch", "20000");
        assertEquals(2, run.status);
        assertTrue(run.err.contains("--batch: must be between 1 and 10000"), run.err);
    }

    private record Run(int status, String out, String err) {
    }

    private Run replay(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", "http://localhost:" + agg.port()));
        int status = Replay.run(all, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                w.clock);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
