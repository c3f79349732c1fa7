package io.adreport.launcher.cli;

import io.adreport.client.cli.Args;
import io.adreport.schema.config.ConfigDef;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Where settings come from for one command: {@code --config FILE} (or
 * {@code DATA_DIR/adreport.properties} when present), the environment, then the command line
 * (named flags such as {@code --port} and {@code --set name=value}).
 */
public final class Settings {
    private final Map<String, String> file;
    private final Map<String, String> env;
    private final Map<String, String> overrides;

    private Settings(Map<String, String> file, Map<String, String> env, Map<String, String> overrides) {
        this.file = file;
        this.env = env;
        this.overrides = overrides;
    }

    /**
     * @param flagToSetting command-line flags that are shorthands for settings
     *                      ({@code data-dir} → {@code data.dir})
     */
    public static Settings from(Args args, Map<String, String> flagToSetting) {
        Map<String, String> overrides = new HashMap<>(args.sets());
        flagToSetting.forEach((flag, setting) -> {
            if (args.flag(flag) != null) {
                overrides.put(setting, args.flag(flag));
            }
        });
        Map<String, String> env = System.getenv();
        String dataDir = overrides.getOrDefault("data.dir", env.getOrDefault(ConfigDef.envName("data.dir"), "./data"));
        Path configFile = args.flag("config") != null ? Path.of(args.flag("config")) : Path.of(dataDir, "adreport.properties");
        Map<String, String> file = new HashMap<>();
        if (args.flag("config") != null || Files.isRegularFile(configFile)) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(configFile)) {
                p.load(r);
            } catch (IOException e) {
                throw new Args.UsageException("cannot read config file " + configFile + ": " + e.getMessage());
            }
            p.forEach((k, v) -> file.put(k.toString(), v.toString()));
        }
        return new Settings(file, env, overrides);
    }

    public ConfigDef.Values resolve(ConfigDef def) {
        return def.parse(file, env, overrides);
    }

    /** Adds a value unless the user set one (e.g. a generated local secret). */
    public void putDefault(String setting, String value) {
        if (!overrides.containsKey(setting) && !file.containsKey(setting) && !env.containsKey(ConfigDef.envName(setting))) {
            overrides.put(setting, value);
        }
    }
}
