package io.adreport.schema.cube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class CubeLoaderTest {

    @Test
    void default_ads_cube_has_the_contract_rollups_and_metrics() {
        Cube cube = CubeLoader.defaultCube();
        assertEquals(List.of("network", "advertiser", "campaign", "creative", "country", "publisher", "zone", "device_type"),
                cube.rollups().stream().map(Rollup::name).toList());
        for (String m : List.of("impressions", "clicks", "conversions", "spendMicros", "conversionValueMicros")) {
            assertTrue(cube.metric(m).isPresent(), m);
        }
        for (String d : List.of("ctr", "ecpm", "cpc", "cvr")) {
            assertTrue(cube.derivedMetric(d).isPresent(), d);
        }
        assertEquals(null, cube.rollup("network").orElseThrow().tenant());
        assertEquals("advertiser", cube.rollup("creative").orElseThrow().tenant());
        assertEquals(List.of("publisher", "zone"), cube.rollup("zone").orElseThrow().dimensions());
        assertEquals("publisher", cube.rollup("zone").orElseThrow().tenant());
        assertEquals(Metric.Kind.SUM, cube.metric("spendMicros").orElseThrow().kind());
        assertEquals("impression", cube.metric("spendMicros").orElseThrow().eventType());
    }

    @Test
    void a_cube_keeps_the_text_it_was_read_from() {
        CubeSource ads = CubeLoader.defaultSource();
        assertEquals(ads, CubeLoader.defaultCube().source());
        assertTrue(ads.text().startsWith("name: ads") || ads.text().contains("\nname: ads"), ads.text());
        String json = "{\"name\": \"t\", \"event\": {\"timeField\": \"time\"}, \"dimensions\": [],"
                + " \"metrics\": [{\"name\": \"n\", \"count\": true}], \"rollups\": [{\"name\": \"all\", \"dimensions\": []}]}";
        assertEquals(new CubeSource("t.json", json), CubeLoader.parse("t.json", json).source());
    }

    @Test
    void a_web_analytics_cube_without_types_or_ids_loads() {
        Cube cube = CubeLoader.parse("wiki.json", """
                {"name": "wiki", "event": {"timeField": "time"},
                 "dimensions": [{"name": "channel"}, {"name": "page", "maxLength": 512}],
                 "numericFields": [{"name": "added", "min": 0}],
                 "metrics": [{"name": "edits", "count": true}, {"name": "added", "sum": "added"}],
                 "rollups": [{"name": "channel", "dimensions": ["channel"]}]}
                """);
        assertEquals(null, cube.event().idField());
        assertEquals(List.of(Granularity.MINUTES_15, Granularity.HOUR, Granularity.DAY), cube.rollups().get(0).granularities());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown rollup dimension | rollups: [{name: r, dimensions: [nope]}] | bad.yaml: rollups[0].dimensions[0]: 'nope' is not one of dimensions",
        "tenant not first | rollups: [{name: r, dimensions: [campaign, advertiser], tenant: advertiser}] | bad.yaml: rollups[0].tenant: 'advertiser' must be the rollup's first dimension",
        "no 15m | rollups: [{name: r, dimensions: [], granularities: [hour]}] | bad.yaml: rollups[0].granularities: must include 15m",
        "bad granularity | rollups: [{name: r, dimensions: [], granularities: [15m, week]}] | bad.yaml: rollups[0].granularities[1]: must be one of 15m, hour, day",
        "duplicate rollup | rollups: [{name: r, dimensions: []}, {name: r, dimensions: []}] | bad.yaml: rollups[1].name: 'r' is declared twice",
        "unknown key | rollups: [{name: r, dimensions: [], colour: red}] | bad.yaml: rollups[0].colour: unknown entry",
        "negative ttl | rollups: [{name: r, dimensions: [], ttlDays: -1}] | bad.yaml: rollups[0].ttlDays: must be an integer in 1..100000, not -1",
    })
    void bad_rollups_name_the_file_the_entry_and_the_rule(String what, String rollups, String expected) {
        CubeException e = assertThrows(CubeException.class, () -> CubeLoader.parse("bad.yaml", base(rollups)));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    @Test
    void sum_of_an_undeclared_field_is_refused() {
        String text = base("rollups: [{name: r, dimensions: []}]").replace("sum: costMicros", "sum: priceMicros");
        CubeException e = assertThrows(CubeException.class, () -> CubeLoader.parse("bad.yaml", text));
        assertEquals("bad.yaml: metrics[1].sum: 'priceMicros' is not one of numericFields", e.getMessage());
    }

    @Test
    void derived_metric_over_an_unknown_metric_is_refused() {
        String text = base("rollups: [{name: r, dimensions: []}]") + "derived: [{name: ctr, numerator: clicks, denominator: views}]\n";
        CubeException e = assertThrows(CubeException.class, () -> CubeLoader.parse("bad.yaml", text));
        assertEquals("bad.yaml: derived[0].denominator: 'views' is not one of metrics", e.getMessage());
    }

    @Test
    void malformed_yaml_names_the_file() {
        CubeException e = assertThrows(CubeException.class, () -> CubeLoader.parse("broken.yaml", "name: [unclosed"));
        assertTrue(e.getMessage().startsWith("broken.yaml: not valid YAML or JSON"), e.getMessage());
    }

    @Test
    void missing_time_field_is_refused() {
        String text = base("rollups: [{name: r, dimensions: []}]").replace("  timeField: ts\n", "");
        CubeException e = assertThrows(CubeException.class, () -> CubeLoader.parse("bad.yaml", text));
        assertEquals("bad.yaml: event.timeField: is required", e.getMessage());
    }

    @Test
    void join_to_an_unknown_type_is_refused() {
        String text = base("rollups: [{name: r, dimensions: []}]").replace("targetType: impression", "targetType: view");
        CubeException e = assertThrows(CubeException.class, () -> CubeLoader.parse("bad.yaml", text));
        assertEquals("bad.yaml: event.join.targetType: 'view' is not one of event.types", e.getMessage());
    }

    private static String base(String rollups) {
        return """
                name: t
                event:
                  typeField: type
                  types: [impression, click]
                  idField: id
                  timeField: ts
                  join: {field: impressionId, fromTypes: [click], targetType: impression}
                dimensions:
                  - {name: advertiser}
                  - {name: campaign}
                numericFields:
                  - {name: costMicros, min: 0}
                metrics:
                  - {name: impressions, count: true, eventType: impression}
                  - {name: spend, sum: costMicros, eventType: impression}
                  - {name: clicks, count: true, eventType: click}
                """ + rollups + "\n";
    }
}
