package io.adreport.schema.config;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A table of settings (name, type, default, rule, description), in the manner of Kafka's
 * {@code ConfigDef}. Each module defines its own table and builds one validated record from it.
 * The same table generates the README's configuration section, so docs cannot drift from code.
 *
 * <p>Values come from, in rising precedence: defaults, a properties file, environment variables
 * ({@code ADREPORT_FLUSH_INTERVAL_MS} for {@code flush.interval.ms}), and command-line
 * {@code --set name=value}. Parsing fails fast with a message naming the setting, the rule and
 * the value.
 */
public final class ConfigDef {

    /** Value types, each with its parser. */
    public enum Type { STRING, INT, LONG, BOOLEAN, DURATION_MS, PATH, TIME }

    /** One setting. {@code defaultValue} null means required. */
    public record Setting(String name, Type type, String defaultValue, String rule,
                          Predicate<String> check, String description) {
    }

    private final Map<String, Setting> settings = new LinkedHashMap<>();
    private final String title;

    public ConfigDef(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }

    public ConfigDef define(String name, Type type, String defaultValue, String description) {
        return define(name, type, defaultValue, null, v -> true, description);
    }

    /** A setting with a rule whose text and check were made together ({@link #between} and the like). */
    public ConfigDef define(String name, Type type, String defaultValue, Rule rule, String description) {
        return define(name, type, defaultValue, rule.text(), rule.check(), description);
    }

    /** A setting whose rule no {@link Rule} factory states (a pattern): its text and check, given apart. */
    public ConfigDef define(String name, Type type, String defaultValue, String rule,
                            Predicate<String> check, String description) {
        if (settings.put(name, new Setting(name, type, defaultValue, rule, check, description)) != null) {
            throw new IllegalArgumentException("setting defined twice: " + name);
        }
        return this;
    }

    public List<Setting> settings() {
        return List.copyOf(settings.values());
    }

    /**
     * The settings of this table that {@code source} gives a value for (name → value, in table
     * order), e.g. {@code conf::get} of a Hadoop configuration; {@code source} answers null for
     * a setting it does not give.
     */
    public Map<String, String> given(Function<String, String> source) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Setting s : settings.values()) {
            String v = source.apply(s.name());
            if (v != null) {
                out.put(s.name(), v);
            }
        }
        return out;
    }

    /** Environment variable that sets {@code name}. */
    public static String envName(String name) {
        return "ADREPORT_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /**
     * Resolves every setting. {@code file} and {@code overrides} may hold keys of other modules'
     * tables; they are ignored here.
     */
    public Values parse(Map<String, String> file, Map<String, String> env, Map<String, String> overrides) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Setting s : settings.values()) {
            String v = s.defaultValue();
            String from = "default";
            if (file.containsKey(s.name())) {
                v = file.get(s.name());
                from = "config file";
            }
            if (env.containsKey(envName(s.name()))) {
                v = env.get(envName(s.name()));
                from = envName(s.name());
            }
            if (overrides.containsKey(s.name())) {
                v = overrides.get(s.name());
                from = "command line";
            }
            if (v == null) {
                problems.add(s.name() + ": is required (set it in the config file, " + envName(s.name()) + " or --set " + s.name() + "=...)");
                continue;
            }
            String problem = typeProblem(s.type(), v);
            if (problem == null && !s.check().test(v)) {
                problem = s.rule();
            }
            if (problem != null) {
                problems.add(s.name() + ": " + problem + ", not '" + v + "' (from " + from + ")");
                continue;
            }
            out.put(s.name(), v);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("invalid configuration:\n  " + String.join("\n  ", problems));
        }
        return new Values(Collections.unmodifiableMap(out));
    }

    public Values parse(Map<String, String> overrides) {
        return parse(Map.of(), System.getenv(), overrides);
    }

    /**
     * The defaults with {@code overrides} applied, and nothing else: no file, no environment. For
     * tests and tools that must not depend on the process's environment.
     */
    public Values withOverrides(Map<String, String> overrides) {
        return parse(Map.of(), Map.of(), overrides);
    }

    private static String typeProblem(Type type, String v) {
        try {
            switch (type) {
                case INT -> Integer.parseInt(v.trim());
                case LONG, DURATION_MS -> Long.parseLong(v.trim());
                case BOOLEAN -> {
                    if (!v.equals("true") && !v.equals("false")) {
                        return "must be true or false";
                    }
                }
                case TIME -> LocalTime.parse(v.trim());
                default -> { }
            }
            return null;
        } catch (RuntimeException e) {
            return switch (type) {
                case INT, LONG -> "must be an integer";
                case DURATION_MS -> "must be a number of milliseconds";
                case TIME -> "must be a time of day HH:MM";
                default -> "is malformed";
            };
        }
    }

    /** Markdown table of the settings, for the README. */
    public String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| setting | env | type | default | rule | description |\n|---|---|---|---|---|---|\n");
        for (Setting s : settings.values()) {
            sb.append("| `").append(s.name()).append("` | `").append(envName(s.name())).append("` | ")
                    .append(s.type().name().toLowerCase(Locale.ROOT)).append(" | ")
                    .append(s.defaultValue() == null ? "*(required)*" : s.defaultValue().isEmpty() ? "*(empty)*" : "`" + s.defaultValue() + "`")
                    .append(" | ").append(s.rule() == null ? "" : s.rule()).append(" | ")
                    .append(s.description()).append(" |\n");
        }
        return sb.toString();
    }

    /** Resolved, validated values. */
    public record Values(Map<String, String> raw) {
        public String string(String name) {
            String v = raw.get(name);
            if (v == null) {
                throw new IllegalArgumentException("no setting " + name);
            }
            return v;
        }

        public int integer(String name) {
            return Integer.parseInt(string(name).trim());
        }

        public long longValue(String name) {
            return Long.parseLong(string(name).trim());
        }

        public boolean bool(String name) {
            return Boolean.parseBoolean(string(name));
        }

        public Duration millis(String name) {
            return Duration.ofMillis(longValue(name));
        }

        public Path path(String name) {
            return Path.of(string(name));
        }

        public LocalTime time(String name) {
            return LocalTime.parse(string(name).trim());
        }
    }

    /**
     * A rule: its text, shown in the README's table and in the error that refuses a value, and its
     * check, made by one factory so that neither can say what the other does not.
     */
    public record Rule(String text, Predicate<String> check) {
        /** The same check, its text followed by {@code note} in parentheses (e.g. what 0 means). */
        public Rule noting(String note) {
            return new Rule(text + " (" + note + ")", check);
        }
    }

    /** An integer of at least {@code min}: {@code ">= min"}. */
    public static Rule atLeast(long min) {
        return new Rule(">= " + min, v -> Long.parseLong(v.trim()) >= min);
    }

    /** An integer from {@code min} to {@code max}, both included: {@code "min..max"}. */
    public static Rule between(long min, long max) {
        return new Rule(min + ".." + max, v -> {
            long x = Long.parseLong(v.trim());
            return x >= min && x <= max;
        });
    }

    /** One of {@code options}, as written: {@code "a, b or c"}. */
    public static Rule oneOf(String... options) {
        List<String> all = List.of(options);
        String text = all.size() == 1 ? all.get(0)
                : String.join(", ", all.subList(0, all.size() - 1)) + " or " + all.get(all.size() - 1);
        return new Rule(text, all::contains);
    }
}
