package io.adreport.schema.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.config.ConfigDef.Rule;
import io.adreport.schema.config.ConfigDef.Type;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A rule's text and its check come from one factory; a refused value's error names the setting and that text. */
class ConfigDefTest {
    @Test
    void each_rule_says_what_its_check_accepts() {
        Rule range = ConfigDef.between(1, 64);
        assertEquals("1..64", range.text());
        assertTrue(range.check().test("1") && range.check().test("64"));
        assertFalse(range.check().test("0") || range.check().test("65"));

        Rule floor = ConfigDef.atLeast(100);
        assertEquals(">= 100", floor.text());
        assertTrue(floor.check().test("100"));
        assertFalse(floor.check().test("99"));

        Rule options = ConfigDef.oneOf("json", "csv", "ndjson");
        assertEquals("json, csv or ndjson", options.text());
        assertTrue(options.check().test("csv"));
        assertFalse(options.check().test("xml"));

        Rule noted = ConfigDef.between(0, 10).noting("0: off");
        assertEquals("0..10 (0: off)", noted.text());
        assertTrue(noted.check().test("0"));
        assertFalse(noted.check().test("11"));
    }

    @Test
    void a_refused_value_names_the_setting_the_rule_and_where_it_came_from() {
        ConfigDef def = new ConfigDef("Test")
                .define("a.threads", Type.INT, "4", ConfigDef.between(1, 64), "threads")
                .define("a.format", Type.STRING, "json", ConfigDef.oneOf("json", "csv"), "format");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> def.parse(Map.of(), Map.of(), Map.of("a.threads", "65", "a.format", "xml")));
        assertTrue(e.getMessage().contains("a.threads: 1..64, not '65' (from command line)"), e.getMessage());
        assertTrue(e.getMessage().contains("a.format: json or csv, not 'xml' (from command line)"), e.getMessage());
        assertTrue(def.markdown().contains("| `a.threads` | `ADREPORT_A_THREADS` | int | `4` | 1..64 | threads |"), def.markdown());
    }

    @Test
    void with_overrides_is_the_defaults_with_only_the_overrides_applied() {
        ConfigDef def = new ConfigDef("Test")
                .define("a.threads", Type.INT, "4", ConfigDef.between(1, 64), "threads")
                .define("a.format", Type.STRING, "json", ConfigDef.oneOf("json", "csv"), "format")
                .define("a.timeout.ms", Type.DURATION_MS, "1500", "timeout");

        assertEquals(Map.of("a.threads", "4", "a.format", "json", "a.timeout.ms", "1500"),
                def.withOverrides(Map.of()).raw());

        ConfigDef.Values v = def.withOverrides(Map.of("a.format", "csv", "other.module.setting", "x"));
        assertEquals(Map.of("a.threads", "4", "a.format", "csv", "a.timeout.ms", "1500"), v.raw());
        assertEquals(4, v.integer("a.threads"));
        assertEquals("csv", v.string("a.format"));
        assertEquals(Duration.ofMillis(1500), v.millis("a.timeout.ms"));

        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> def.withOverrides(Map.of("a.threads", "0")));
        assertTrue(bad.getMessage().contains("a.threads: 1..64, not '0' (from command line)"), bad.getMessage());

        ConfigDef required = new ConfigDef("Test").define("a.path", Type.PATH, null, "path");
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> required.withOverrides(Map.of()));
        assertTrue(missing.getMessage().contains("a.path: is required"), missing.getMessage());
        assertEquals("data/x", required.withOverrides(Map.of("a.path", "data/x")).string("a.path"));
    }
}
