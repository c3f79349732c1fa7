package io.adreport.testkit;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (a browser, the public data sets) and what happens when it
 * is missing. On a developer's machine the test is skipped with a message naming what is missing
 * and how to get it; where skips must not hide a check — CI sets {@code -Dadreport.tests.strict=true}
 * or {@code ADREPORT_TESTS_STRICT=true} — the same call fails the test instead, so a green build
 * never stands on a check that did not run.
 */
public final class Prerequisites {
    /** System property that turns skips into failures. */
    public static final String STRICT_PROPERTY = "adreport.tests.strict";
    /** Environment variable with the same effect (what {@code .ci/run} exports). */
    public static final String STRICT_ENV = "ADREPORT_TESTS_STRICT";

    private Prerequisites() {
    }

    /** True when missing prerequisites fail tests instead of skipping them. */
    public static boolean strict() {
        String value = System.getProperty(STRICT_PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(STRICT_ENV);
        }
        return value != null && (value.equalsIgnoreCase("true") || value.equals("1"));
    }

    /**
     * Continues when {@code present}; otherwise skips the calling test (or container) with
     * {@code missing} as the reason, or fails it in strict mode. The build's console counts the
     * test as skipped (surefire's "Skipped: N" warning names the class); the reason is written to
     * standard error, which surefire keeps in {@code target/surefire-reports/*-output.txt}.
     *
     * @param present whether the prerequisite is there
     * @param missing what is missing and how to provide it, e.g. "/usr/bin/chromedriver is absent
     *     (apt-get install chromium chromium-driver)"
     */
    public static void require(boolean present, String missing) {
        if (present) {
            return;
        }
        if (strict()) {
            Assertions.fail("required check cannot run (strict mode: " + STRICT_PROPERTY + " or " + STRICT_ENV
                    + " is true): " + missing);
        }
        System.err.println("SKIPPED: " + missing);
        Assumptions.abort("skipped: " + missing);
    }
}
