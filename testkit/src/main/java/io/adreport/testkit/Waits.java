package io.adreport.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting in a test for what another thread does (a background refresh, a flush), bounded by a ceiling. */
public final class Waits {
    private Waits() {
    }

    /**
     * Returns once {@code condition} holds, polling every 10 ms.
     *
     * @throws AssertionError naming {@code what} when it still does not hold after {@code ceiling}
     */
    public static void until(BooleanSupplier condition, Duration ceiling, String what) throws InterruptedException {
        long end = System.nanoTime() + ceiling.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + ": not after " + ceiling);
            }
            Thread.sleep(10);
        }
    }
}
