package io.adreport.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconcileCliTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return ReconcileCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void a_missing_day_is_a_usage_error() {
        assertEquals(2, run("--dry-run"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--day: is required"));
    }

    @Test
    void a_bad_setting_names_the_setting_and_the_rule(@TempDir Path dir) {
        assertEquals(2, run("--day", "2026-11-28", "--data-dir", dir.toString(), "--set", "reconcile.lookback.days=99"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("reconcile.lookback.days: 0..30, not '99'"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void the_tool_exits_2_on_bad_options() throws Exception {
        assertEquals(2, new ReconcileTool().run(new String[] {"--day", "yesterday"}));
    }
}
