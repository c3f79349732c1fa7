package io.adreport.schema.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.table.TableLayout;
import io.adreport.testkit.HungConnection;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Regression (fault suite, HBase outage; the report API hung for the whole outage): a request's
 * meta read (API key, day states) parked on the connection's region-lookup lock, which HBase's
 * own operation timeout does not cover. A store with an operation timeout runs those reads under
 * a hard deadline ({@code MetaTable.withDeadline}): here every connection call parks until the
 * test ends, and each read must come back failed, naming the deadline, instead of waiting.
 */
class MetaDeadlineTest {
    /** How long the test waits for a read to give up: far above the store's 300 ms. */
    private static final Duration CEILING = Duration.ofMinutes(1);

    @Test
    void a_meta_read_parked_on_a_hung_connection_gives_up_at_the_deadline() throws Exception {
        Duration timeout = Duration.ofMillis(300);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (HungConnection hung = new HungConnection()) {
            TableLayout layout = new TableLayout(CubeLoader.defaultCube(), "deadline_test");
            DayStatusStore meta = new DayStatusStore(hung.connection(), layout, Clock.systemUTC(), timeout);
            ApiKeyStore keys = new ApiKeyStore(hung.connection(), layout, Clock.systemUTC(), timeout);
            LocalDate day = LocalDate.of(2026, 11, 30);
            Map<String, Callable<Object>> reads = new LinkedHashMap<>();
            reads.put("day state", () -> meta.day(day));
            reads.put("day states", () -> meta.days(day.minusDays(6), day));
            reads.put("API key", () -> keys.key("0123456789abcdef"));
            for (Map.Entry<String, Callable<Object>> read : reads.entrySet()) {
                Future<Object> answer = caller.submit(read.getValue());
                try {
                    Object value = answer.get(CEILING.toMillis(), TimeUnit.MILLISECONDS);
                    fail(read.getKey() + ": answered " + value + " through a hung connection");
                } catch (TimeoutException e) {
                    answer.cancel(true);
                    fail(read.getKey() + ": the read still waits for the hung connection after " + CEILING
                            + " (no deadline of " + timeout.toMillis() + " ms)");
                } catch (ExecutionException e) {
                    assertTrue(e.getCause() instanceof UncheckedIOException, read.getKey() + ": " + e.getCause());
                    assertEquals("meta table did not answer within " + timeout.toMillis() + " ms", e.getCause().getCause().getMessage(),
                            read.getKey());
                }
            }
        } finally {
            caller.shutdownNow();
        }
    }
}
