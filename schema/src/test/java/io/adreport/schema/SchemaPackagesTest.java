package io.adreport.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of this module form no cycle: a package that names another (by import or fully
 * qualified name, comments included) is never named back, directly or through others. E.g. the
 * table layout owns its family names and lifetimes, and profile and campaign code import table.
 */
class SchemaPackagesTest {
    private static final Path ROOT = Path.of("src/main/java/io/adreport/schema");
    private static final Pattern REF = Pattern.compile("io\\.adreport\\.schema\\.([a-z]+)\\b");

    @Test
    void no_package_of_the_module_reaches_itself_through_another() throws IOException {
        Map<String, Set<String>> uses = graph();
        List<String> cycles = new ArrayList<>();
        for (String p : uses.keySet()) {
            for (String q : uses.get(p)) {
                if (reaches(uses, q, p, new TreeSet<>())) {
                    cycles.add(p + " -> " + q + " -> ... -> " + p);
                }
            }
        }
        assertEquals(List.of(), cycles, "package graph: " + uses);
    }

    private static Map<String, Set<String>> graph() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String pkg = ROOT.relativize(f.getParent()).toString().replace('/', '.');
                Set<String> to = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REF.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        to.add(m.group(1));
                    }
                }
            }
        }
        return uses;
    }

    private static boolean reaches(Map<String, Set<String>> uses, String from, String target, Set<String> seen) {
        if (from.equals(target)) {
            return true;
        }
        if (!seen.add(from)) {
            return false;
        }
        for (String next : uses.getOrDefault(from, Set.of())) {
            if (reaches(uses, next, target, seen)) {
                return true;
            }
        }
        return false;
    }
}
