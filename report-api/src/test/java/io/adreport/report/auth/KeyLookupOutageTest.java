package io.adreport.report.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.adreport.http.auth.ApiKeys;
import io.adreport.http.auth.Role;
import io.adreport.report.ReportConfig;
import io.adreport.report.ReportFixture;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.meta.ApiKeyStore;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.HungConnection;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.MutableClock;
import io.adreport.testkit.Waits;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Regression (cluster end-to-end: the region server holding the meta table stopped, and every
 * check whose key's cache entry had expired waited 30 s and failed with 503; later, with the
 * lookup bounded, such a check still waited out {@code report.key.lookup.ms} before its own
 * 500 ms deadline and answered after 1.5 s): a key's last known answer is served at once while it
 * is refreshed in the background, and keeps serving while the meta table does not answer, for
 * {@code report.key.stale.ms}; a refresh is tried once per cache time; a key never seen still
 * fails.
 */
@ExtendWith(HBaseExtension.class)
class KeyLookupOutageTest {
    private static final Duration CEILING = Duration.ofMinutes(1);

    @Test
    void a_known_key_keeps_its_last_answer_while_the_meta_table_is_silent(MiniHBase hbase) throws Exception {
        ReportFixture fx = ReportFixture.get(hbase);
        String key = fx.deps.keys().create("advertiser:adv2");
        String unseen = fx.deps.keys().create("analyst");
        ReportConfig config = ReportConfig.of(Map.of("report.key.cache.ms", "2000", "report.key.lookup.ms", "2000",
                "report.key.stale.ms", "600000"));
        MutableClock clock = new MutableClock(Instant.parse("2026-11-02T12:00:00Z"));
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (HungConnection connection = new HungConnection(fx.deps.connection())) {
            ApiKeys keys = ReportApi.apiKeys(new ApiKeyStore(connection.connection(), fx.deps.layout(), clock, config.keyLookup()),
                    fx.cube, config, clock);
            Optional<Role> known = keys.authenticate(key);
            assertEquals("advertiser:adv2", known.orElseThrow().toString());
            long lookups = keys.lookups();

            connection.hang();
            clock.advance(config.keyCache().plusMillis(1));
            assertEquals(known, within(caller, () -> keys.authenticate(key)), "the last known answer, while the meta table is silent");
            // answered before its refresh's lookup missed the deadline (2 s): the request did not wait for the meta table
            assertEquals(0, keys.staleAnswers(), "the request waited for its key's refresh");
            Waits.until(() -> connection.parked() > 0, CEILING, "the refresh reached the silent connection");
            assertEquals(lookups + 1, keys.lookups(), "one refresh was tried");
            assertEquals(known, within(caller, () -> keys.authenticate(key)));
            assertEquals(lookups + 1, keys.lookups(), "no second refresh within the cache time");

            Waits.until(() -> keys.staleAnswers() == 1, CEILING, "the refresh missed its deadline: counted as a stale answer");
            assertEquals(known, within(caller, () -> keys.authenticate(key)));
            clock.advance(config.keyCache().plusMillis(1));
            assertEquals(known, within(caller, () -> keys.authenticate(key)), "still within report.key.stale.ms");
            Waits.until(() -> keys.staleAnswers() == 2, CEILING, "the next refresh, one cache time later, failed too");
            assertEquals(lookups + 2, keys.lookups());

            ExecutionException never = assertThrows(ExecutionException.class, () -> within(caller, () -> keys.authenticate(unseen)));
            assertTrue(never.getCause() instanceof UncheckedIOException, "a key never seen has no last answer: " + never.getCause());

            clock.advance(config.keyStale());
            ExecutionException tooOld = assertThrows(ExecutionException.class, () -> within(caller, () -> keys.authenticate(key)));
            assertTrue(tooOld.getCause() instanceof UncheckedIOException, "past report.key.stale.ms: " + tooOld.getCause());
        } finally {
            caller.shutdownNow();
        }
    }

    private static <T> T within(ExecutorService caller, java.util.concurrent.Callable<T> call) throws Exception {
        Future<T> f = caller.submit(call);
        try {
            return f.get(CEILING.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            fail("still waiting for the meta table after " + CEILING);
            return null;
        }
    }
}
