package io.adreport.schema.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** The example wikiticker cube takes Druid's tutorial stream, which nobody here wrote, as it is. */
class RealDataTest {
    private static final Path WIKI = Path.of("../../shared/datasets/wikiticker-2015-09-12-sampled.json.gz");

    @Test
    void wikiticker_stream_parses_with_the_example_cube() throws Exception {
        Path data = WIKI.toAbsolutePath().normalize();
        if (!Files.exists(data)) {
            data = Path.of("../shared/datasets/wikiticker-2015-09-12-sampled.json.gz").toAbsolutePath();
        }
        assumeTrue(Files.exists(data), "dataset not present: " + data);
        Cube cube = CubeLoader.load(Path.of("../docs/examples/wikiticker.yaml"));
        EventParser parser = new EventParser(cube, Clock.fixed(Instant.parse("2015-09-13T00:00:00Z"), ZoneOffset.UTC),
                Duration.ofDays(2), null);
        ObjectMapper json = new ObjectMapper();
        int lines = 0;
        Map<String, Integer> rejected = new HashMap<>();
        Set<String> ids = new HashSet<>();
        long added = 0;
        long independentAdded = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(data)), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines++;
                var node = json.readTree(line);
                independentAdded += node.path("added").asLong();
                try {
                    Event e = parser.parse(node);
                    ids.add(e.id());
                    added += e.number("added");
                } catch (EventRejected ex) {
                    rejected.merge(ex.getMessage(), 1, Integer::sum);
                }
            }
        }
        assertEquals(39_244, lines);
        assertEquals(Map.of(), rejected);
        assertEquals(independentAdded, added);
        // content-hash ids: identical lines collapse, distinct edits do not
        assertEquals(true, ids.size() > 39_000, "distinct ids: " + ids.size());
    }
}
