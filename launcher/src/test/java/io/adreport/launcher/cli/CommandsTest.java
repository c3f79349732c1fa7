package io.adreport.launcher.cli;

import io.adreport.client.cli.Args;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandsTest {

    @Test
    void unknown_options_and_commands_are_named() {
        Args.UsageException e = assertThrows(Args.UsageException.class, () -> run("schema", "apply", "--dryrun"));
        assertEquals("--dryrun: unknown option", e.getMessage());
        e = assertThrows(Args.UsageException.class, () -> run("frobnicate"));
        assertEquals("unknown command 'frobnicate'", e.getMessage());
        e = assertThrows(Args.UsageException.class, () -> run("reconcile"));
        assertEquals("reconcile needs --day YYYY-MM-DD", e.getMessage());
    }

    @Test
    void a_command_without_a_running_stack_or_cluster_says_how_to_get_one(@TempDir Path dir) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> run("schema", "apply", "--dry-run", "--data-dir", dir.toString()));
        assertTrue(e.getMessage().contains("bin/adreport local --data-dir"), e.getMessage());
    }

    @Test
    void bad_settings_name_the_setting_the_rule_and_the_value(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> run("schema", "apply", "--data-dir", dir.toString(), "--set", "ingest.accept.window.days=0"));
        assertTrue(e.getMessage().contains("ingest.accept.window.days: 1..36500, not '0' (from command line)"), e.getMessage());
    }

    @Test
    void reconcile_checks_the_day_and_its_settings_before_touching_hbase(@TempDir Path dir) {
        Args.UsageException day = assertThrows(Args.UsageException.class,
                () -> run("reconcile", "--day", "yesterday", "--data-dir", dir.toString()));
        assertEquals("--day: must be a date YYYY-MM-DD, not 'yesterday'", day.getMessage());
        IllegalArgumentException setting = assertThrows(IllegalArgumentException.class,
                () -> run("reconcile", "--day", "2026-11-28", "--data-dir", dir.toString(), "--set", "reconcile.lookback.days=99"));
        assertTrue(setting.getMessage().contains("reconcile.lookback.days: 0..30, not '99'"), setting.getMessage());
    }

    @Test
    void privacy_delete_checks_the_command_and_the_device_before_touching_hbase(@TempDir Path dir) {
        String d = dir.toString();
        String secret = "device.hash.secret=0123456789abcdef-cli";
        assertEquals("usage: bin/adreport privacy delete DEVICE [--wait]",
                assertThrows(Args.UsageException.class, () -> run("privacy", "delete", "--data-dir", d, "--set", secret)).getMessage());
        assertEquals("unknown privacy command 'erase' (try: privacy delete DEVICE)", assertThrows(Args.UsageException.class,
                () -> run("privacy", "erase", "dev-1", "--data-dir", d, "--set", secret)).getMessage());
        String placeholder = assertThrows(Args.UsageException.class,
                () -> run("privacy", "delete", "unknown", "--data-dir", d, "--set", secret)).getMessage();
        assertTrue(placeholder.startsWith("device: names no device"), placeholder);
    }

    @Test
    void a_reconcile_range_checks_its_days_before_touching_hbase(@TempDir Path dir) {
        String d = dir.toString();
        assertEquals("reconcile --from needs --to (and --to needs --from): YYYY-MM-DD, both included",
                assertThrows(Args.UsageException.class, () -> run("reconcile", "--from", "2026-11-20", "--data-dir", d)).getMessage());
        assertEquals("reconcile takes --day or --from and --to, not both", assertThrows(Args.UsageException.class,
                () -> run("reconcile", "--day", "2026-11-20", "--from", "2026-11-20", "--to", "2026-11-21", "--data-dir", d)).getMessage());
        assertEquals("--to: must be a date YYYY-MM-DD, not 'soon'", assertThrows(Args.UsageException.class,
                () -> run("reconcile", "--from", "2026-11-20", "--to", "soon", "--data-dir", d)).getMessage());
        assertEquals("--to: must not be before --from (2026-11-20), not 2026-11-19", assertThrows(Args.UsageException.class,
                () -> run("reconcile", "--from", "2026-11-20", "--to", "2026-11-19", "--data-dir", d)).getMessage());
    }

    @Test
    void help_lists_the_commands() throws Exception {
        String out = run("help");
        for (String c : List.of("local", "schema apply", "reconcile --day", "reconcile --from", "keys add --role", "replay FILE", "config")) {
            assertTrue(out.contains(c), c);
        }
    }

    @Test
    void help_after_a_command_prints_usage_instead_of_running_it(@TempDir Path dir) throws Exception {
        for (String command : List.of("local", "schema", "keys", "aggregator")) {
            String out = run(command, "--help", "--data-dir", dir.toString());
            assertTrue(out.startsWith("usage: bin/adreport COMMAND"), command + ": " + out);
        }
        assertEquals(0, dir.toFile().list().length, "nothing was started or written");
    }

    private static String run(String... argv) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Commands.run(List.of(argv), out, out);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
