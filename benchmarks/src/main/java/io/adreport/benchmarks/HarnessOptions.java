package io.adreport.benchmarks;

import java.util.HashMap;
import java.util.Map;

/** A harness's command line: {@code --name value} pairs; {@code --help} prints the usage and exits. */
public final class HarnessOptions {
    private HarnessOptions() {
    }

    /** The values by name (without the dashes); throws on anything but {@code --name value} pairs. */
    public static Map<String, String> parse(String[] args, String usage) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--help")) {
                System.out.println(usage);
                System.exit(0);
            }
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --name value, got " + args[i] + "; " + usage);
            }
            o.put(args[i].substring(2), args[++i]);
        }
        return o;
    }
}
