package io.adreport.schema.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.testkit.Datasets;
import io.adreport.testkit.Datasets.DataFile;
import io.adreport.testkit.Datasets.Format;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The example wikiticker cube takes Druid's tutorial stream, which nobody here wrote, as it is:
 * the committed sample of its format always, the public stream when it is present.
 */
class RealDataTest {
    private static final List<String> CUBE_FIELDS = List.of("time", "channel", "page", "user", "countryName", "namespace",
            "added", "deleted");

    static Stream<DataFile> wikiticker() {
        return Datasets.of(Format.WIKITICKER);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wikiticker")
    void wikiticker_stream_parses_with_the_example_cube(DataFile data) throws Exception {
        Path file = data.path();
        Path root = Datasets.repositoryRoot().orElseThrow(() -> new IllegalStateException("no repository root above the working directory"));
        Cube cube = CubeLoader.load(root.resolve("docs/examples/wikiticker.yaml"));
        EventParser parser = new EventParser(cube, Clock.fixed(Instant.parse("2015-09-13T00:00:00Z"), ZoneOffset.UTC),
                Duration.ofDays(2), (DeviceHasher) null);
        ObjectMapper json = new ObjectMapper();
        int lines = 0;
        Map<String, Integer> rejected = new HashMap<>();
        Set<String> ids = new HashSet<>();
        Set<List<String>> distinctEdits = new HashSet<>();
        long added = 0;
        long independentAdded = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines++;
                JsonNode node = json.readTree(line);
                independentAdded += node.path("added").asLong();
                List<String> edit = new ArrayList<>();
                CUBE_FIELDS.forEach(f -> edit.add(node.path(f).isNull() ? null : node.path(f).asText(null)));
                distinctEdits.add(edit);
                try {
                    Event e = parser.parse(node);
                    ids.add(e.id());
                    added += e.number("added");
                } catch (EventRejected ex) {
                    rejected.merge(ex.getMessage(), 1, Integer::sum);
                }
            }
        }
        assertEquals(data.rows(), lines);
        assertEquals(Map.of(), rejected);
        assertEquals(independentAdded, added);
        // content-hash ids: lines equal in every field the cube reads collapse, all others do not
        assertEquals(distinctEdits.size(), ids.size(), "distinct ids");
    }
}
