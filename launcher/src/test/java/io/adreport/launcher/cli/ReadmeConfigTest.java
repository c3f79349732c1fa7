package io.adreport.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's configuration section is generated from the settings tables. When a setting
 * changes, regenerate it: {@code mvn -pl launcher test -Dtest=ReadmeConfigTest -Dreadme.update=true}.
 */
class ReadmeConfigTest {
    private static final String START = "<!-- config:start -->\n";
    private static final String END = "<!-- config:end -->";

    @Test
    void readme_configuration_section_matches_the_settings_definitions() throws Exception {
        Path readme = Path.of("../docs/CONFIGURATION.md");
        String text = Files.readString(readme);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        assertTrue(start >= 0 && end > start, "docs/CONFIGURATION.md lacks the config markers");
        String generated = ConfigDefs.markdown();
        String current = text.substring(start + START.length(), end);
        if (Boolean.getBoolean("readme.update")) {
            Files.writeString(readme, text.substring(0, start + START.length()) + generated + text.substring(end));
            return;
        }
        assertEquals(generated, current, "docs/CONFIGURATION.md is stale: run mvn -pl launcher test -Dtest=ReadmeConfigTest -Dreadme.update=true");
    }
}
