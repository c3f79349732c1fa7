package io.adreport.launcher.local;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.http.auth.AccessPolicy;
import io.adreport.http.auth.Role;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.EventParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Issue 17: the start banner's examples assumed the ads cube; now they are made from the running one. */
class TryLinesTest {
    private static final Instant NOW = Instant.parse("2026-03-10T12:34:56Z");
    private static final TryLines.Key ANALYST = new TryLines.Key("ak_analyst", Role.analyst());
    private static final Pattern GET = Pattern.compile(
            "curl -H 'Authorization: Bearer (\\S+)' 'http://localhost:8080/v1/reports/([A-Za-z][A-Za-z0-9_]*)\\?([^' ]+)'");
    private static final Pattern POST = Pattern.compile("curl -X POST --data-binary '(.*)' http://localhost:8081/v1/events");
    private static final Set<String> REPORT_PARAMS = Set.of("from", "to", "granularity", "metrics", "groupBy", "orderBy", "limit");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void the_ads_cube_gets_the_hourly_network_the_advertisers_top_creatives_and_an_impression_of_its_own() {
        TryLines.Key advertiser = new TryLines.Key("ak_adv", new Role("advertiser", "acme-outdoor"));
        List<String> lines = TryLines.of(CubeLoader.defaultCube(), 8080, 8081, ANALYST, advertiser, NOW);
        assertEquals(List.of(
                "curl -H 'Authorization: Bearer ak_analyst' 'http://localhost:8080/v1/reports/network"
                        + "?from=2026-03-10&to=2026-03-11&granularity=hour&metrics=impressions,clicks,ctr'",
                "curl -H 'Authorization: Bearer ak_adv' 'http://localhost:8080/v1/reports/creative"
                        + "?from=2026-03-10&to=2026-03-11&granularity=all&groupBy=creative&metrics=impressions,clicks,ctr&orderBy=-clicks&limit=5'",
                "curl -X POST --data-binary '{\"type\":\"impression\",\"id\":\"my-1\",\"ts\":1773146096000,\"advertiser\":\"acme-outdoor\","
                        + "\"campaign\":\"my-campaign\",\"creative\":\"my-creative\",\"costMicros\":1000}' http://localhost:8081/v1/events"),
                lines);
    }

    @Test
    void the_wikiticker_cube_gets_edits_of_the_whole_stream_the_top_pages_and_an_edit() {
        Cube wiki = CubeLoader.load(Path.of("../docs/examples/wikiticker.yaml"));
        List<String> lines = TryLines.of(wiki, 8080, 8081, ANALYST, null, NOW);
        assertEquals(List.of(
                "curl -H 'Authorization: Bearer ak_analyst' 'http://localhost:8080/v1/reports/total"
                        + "?from=2026-03-10&to=2026-03-11&granularity=hour&metrics=edits,added,addedPerEdit'",
                "curl -H 'Authorization: Bearer ak_analyst' 'http://localhost:8080/v1/reports/page"
                        + "?from=2026-03-10&to=2026-03-11&granularity=all&groupBy=page&metrics=edits,added,addedPerEdit&orderBy=-added&limit=5'",
                "curl -X POST --data-binary '{\"time\":1773146096000,\"channel\":\"my-channel\",\"page\":\"my-page\",\"added\":1000}'"
                        + " http://localhost:8081/v1/events"),
                lines);
    }

    /** Every cube the project ships, with the analyst key alone and with a key of each tenant kind. */
    @TestFactory
    Stream<DynamicTest> every_line_names_only_what_the_cube_has_and_the_example_event_is_accepted() throws Exception {
        Map<String, Cube> cubes = new LinkedHashMap<>();
        cubes.put("default ads cube", CubeLoader.defaultCube());
        try (Stream<Path> files = Files.list(Path.of("../docs/examples"))) {
            files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml") || f.toString().endsWith(".json"))
                    .sorted()
                    .forEach(f -> cubes.put(f.getFileName().toString(), CubeLoader.load(f)));
        }
        assertTrue(cubes.size() >= 2, "docs/examples has cubes: " + cubes.keySet());
        List<DynamicTest> tests = new ArrayList<>();
        cubes.forEach((name, cube) -> {
            tests.add(DynamicTest.dynamicTest(name + ", analyst key", () -> check(cube, null)));
            cube.rollups().stream().map(Rollup::tenant).filter(Objects::nonNull).distinct().forEach(kind -> tests.add(
                    DynamicTest.dynamicTest(name + ", " + kind + " key", () -> check(cube, new TryLines.Key("ak_tenant", new Role(kind, "t-1"))))));
        });
        return tests.stream();
    }

    private static void check(Cube cube, TryLines.Key tenant) throws Exception {
        List<String> lines = TryLines.of(cube, 8080, 8081, ANALYST, tenant, NOW);
        Map<String, Role> roles = new LinkedHashMap<>();
        roles.put(ANALYST.key(), ANALYST.role());
        if (tenant != null) {
            roles.put(tenant.key(), tenant.role());
        }
        AccessPolicy policy = new AccessPolicy(cube);
        List<String> gets = lines.stream().filter(l -> l.startsWith("curl -H")).toList();
        assertEquals(2, gets.size(), "a series and a top-N: " + lines);
        Rollup topRollup = null;
        Role topRole = null;
        for (String line : gets) {
            Matcher m = GET.matcher(line);
            assertTrue(m.matches(), line);
            Role role = roles.get(m.group(1));
            assertNotNull(role, "a key the banner printed: " + line);
            Rollup rollup = cube.rollup(m.group(2)).orElseThrow(() -> new AssertionError("no rollup " + m.group(2) + ": " + line));
            assertTrue(policy.canRead(role, rollup), role + " may read " + rollup.name() + ": " + line);
            Map<String, String> params = params(m.group(3));
            assertTrue(REPORT_PARAMS.containsAll(params.keySet()), line);
            LocalDate from = LocalDate.parse(params.get("from"));
            assertEquals(LocalDate.ofInstant(NOW, ZoneOffset.UTC), from);
            assertEquals(from.plusDays(1), LocalDate.parse(params.get("to")));
            assertTrue(Set.of("hour", "day", "month", "all").contains(params.get("granularity")), line);
            List<String> metrics = List.of(params.get("metrics").split(","));
            for (String metric : metrics) {
                assertTrue(cube.metric(metric).isPresent() || cube.derivedMetric(metric).isPresent(), "metric " + metric + ": " + line);
            }
            assertTrue(metrics.stream().anyMatch(x -> cube.metric(x).isPresent()), "a stored metric: " + line);
            if (params.containsKey("groupBy")) {
                for (String d : params.get("groupBy").split(",")) {
                    assertTrue(rollup.dimensions().contains(d), "groupBy " + d + " of " + rollup.name() + ": " + line);
                    assertFalse(!role.isAnalyst() && d.equals(role.kind()), "a tenant grouping by itself sees one row: " + line);
                }
                String orderBy = params.get("orderBy").replaceFirst("^-", "");
                assertTrue(metrics.contains(orderBy), "orderBy a requested metric: " + line);
                assertTrue(Integer.parseInt(params.get("limit")) >= 1, line);
                topRollup = rollup;
                topRole = role;
            } else {
                assertEquals("hour", params.get("granularity"), "the series is hourly: " + line);
            }
        }
        assertNotNull(topRollup, "one of the lines is a top-N: " + gets);
        if (tenant != null) {
            assertEquals(tenant.role(), topRole, "the tenant's own key shows its top-N");
        }

        String post = lines.get(lines.size() - 1);
        Matcher m = POST.matcher(post);
        assertTrue(m.matches(), post);
        JsonNode node = JSON.readTree(m.group(1).replace("'\\''", "'"));
        EventParser parser = new EventParser(cube, Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofDays(7),
                new DeviceHasher("a-test-secret-of-enough-bytes".getBytes(StandardCharsets.UTF_8)));
        Event event = assertDoesNotThrow(() -> parser.parse(node), post);
        assertEquals(NOW, event.ts());
        for (String d : topRollup.dimensions()) {
            assertNotNull(event.dimensions().get(d), "the example event has " + d + ", so it shows in the top-N: " + post);
        }
        if (!topRole.isAnalyst()) {
            assertEquals(topRole.id(), event.dimensions().get(topRole.kind()), "the tenant's own id, so its key sees the event");
        }
    }

    private static Map<String, String> params(String query) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String p : query.split("&")) {
            int eq = p.indexOf('=');
            assertTrue(eq > 0, p);
            assertEquals(null, out.put(p.substring(0, eq), p.substring(eq + 1)), "given once: " + p);
        }
        return out;
    }
}
