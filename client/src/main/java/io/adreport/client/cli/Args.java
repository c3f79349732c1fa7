package io.adreport.client.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one command-line parser of every adreport command ({@code bin/adreport}, {@code replay},
 * the {@code hadoop jar} reconcile tool): positionals, {@code --flag value} or
 * {@code --flag=value}, boolean {@code --flag}, and repeatable {@code --set name=value} (setting
 * overrides). A valued flag given twice keeps every value ({@link #values}); {@link #flag} is the
 * last. {@code -h} is {@code --help}. Unknown flags are errors that name the flag
 * ({@link UsageException}, an {@link IllegalArgumentException}).
 */
public final class Args {
    private final List<String> positionals = new ArrayList<>();
    private final Map<String, String> flags = new LinkedHashMap<>();
    private final Map<String, List<String>> repeated = new LinkedHashMap<>();
    private final Map<String, String> sets = new LinkedHashMap<>();

    /**
     * @param valued  flags that take a value
     * @param booleans flags that take none
     */
    public static Args parse(List<String> argv, Set<String> valued, Set<String> booleans) {
        Args a = new Args();
        for (int i = 0; i < argv.size(); i++) {
            String s = argv.get(i);
            if (s.equals("-h") && booleans.contains("help")) {
                s = "--help";
            }
            if (s.startsWith("--")) {
                String name = s.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq > 0 && !name.startsWith("set=")) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (name.equals("set") || name.startsWith("set=")) {
                    String kv = name.startsWith("set=") ? name.substring(4) : next(argv, ++i, "--set");
                    int k = kv.indexOf('=');
                    if (k <= 0) {
                        throw new UsageException("--set: needs name=value, not '" + kv + "'");
                    }
                    a.sets.put(kv.substring(0, k), kv.substring(k + 1));
                } else if (booleans.contains(name)) {
                    a.flags.put(name, value == null ? "true" : value);
                } else if (valued.contains(name)) {
                    String v = value != null ? value : next(argv, ++i, "--" + name);
                    a.flags.put(name, v);
                    a.repeated.computeIfAbsent(name, k -> new ArrayList<>()).add(v);
                } else {
                    throw new UsageException("--" + name + ": unknown option");
                }
            } else {
                a.positionals.add(s);
            }
        }
        return a;
    }

    private static String next(List<String> argv, int i, String flag) {
        if (i >= argv.size() || argv.get(i).startsWith("--")) {
            throw new UsageException(flag + ": needs a value");
        }
        return argv.get(i);
    }

    public List<String> positionals() {
        return positionals;
    }

    public String flag(String name) {
        return flags.get(name);
    }

    public String flag(String name, String dflt) {
        return flags.getOrDefault(name, dflt);
    }

    /** Every value of a valued flag, in order (empty when not given). */
    public List<String> values(String name) {
        return repeated.getOrDefault(name, List.of());
    }

    public boolean has(String name) {
        return flags.containsKey(name) && !"false".equals(flags.get(name));
    }

    public Map<String, String> sets() {
        return sets;
    }

    /** A wrong command line; the message says what and {@code bin/adreport help} says how. */
    public static final class UsageException extends IllegalArgumentException {
        public UsageException(String message) {
            super(message);
        }
    }
}
