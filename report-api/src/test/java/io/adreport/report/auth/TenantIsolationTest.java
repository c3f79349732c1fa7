package io.adreport.report.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.adreport.report.ReportCheck;
import io.adreport.report.ReportConfig;
import io.adreport.report.ReportFixture;
import io.adreport.report.api.ReportApi;
import io.adreport.schema.cube.Rollup;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import io.adreport.http.auth.ApiKeys;
import io.adreport.schema.meta.ApiKeyStore;

/**
 * No tenant ever reads another tenant's rows, through any route or parameter; unknown and
 * revoked keys are 401. Every 200 a tenant gets is also checked against the recount of its own
 * events only, so a missing tenant filter could not pass unnoticed.
 */
@ExtendWith(HBaseExtension.class)
class TenantIsolationTest {
    private static ReportFixture fx;
    private static final String RANGE = "from=2026-10-31&to=2026-11-03";

    @BeforeAll
    static void start(MiniHBase hbase) {
        fx = ReportFixture.get(hbase);
    }

    private static void assertForbidden(ReportFixture.Reply r, String what, String... foreignIds) {
        assertEquals(403, r.status(), what + " -> " + r.body());
        assertFalse(r.body().contains("\"rows\""), what);
        for (String id : foreignIds) {
            assertFalse(r.body().contains(id), what + " leaked " + id + ": " + r.body());
        }
    }

    /** Parameter combinations a tenant may try on a rollup it owns. */
    private static List<ReportCheck> combinations(Rollup r) {
        List<ReportCheck> out = new ArrayList<>();
        for (String g : List.of("hour", "day", "month", "all")) {
            out.add(ReportCheck.of(r.name(), "2026-10-31", "2026-11-03").granularity(g));
        }
        out.add(ReportCheck.of(r.name(), "2026-10-31", "2026-11-03").granularity("all").groupBy(r.dimensions().toArray(String[]::new)));
        for (String d : r.dimensions()) {
            out.add(ReportCheck.of(r.name(), "2026-10-31", "2026-11-03").granularity("day").tz("Asia/Kolkata").groupBy(d)
                    .orderBy("-impressions").limit(3));
        }
        return out;
    }

    @Test
    void a_tenant_key_reads_only_its_own_rows_with_every_parameter_combination() {
        record Tenant(String key, String kind, String id, List<String> foreign) {
        }
        for (Tenant t : List.of(new Tenant(fx.adv1Key, "advertiser", "adv1", List.of("adv2", "adv3", "tie")),
                new Tenant(fx.pub1Key, "publisher", "pub1", List.of("pub2", "pub3")))) {
            int rows = 0;
            for (Rollup r : fx.cube.rollups()) {
                if (!t.kind().equals(r.tenant())) {
                    assertForbidden(fx.get("/v1/reports/" + r.name() + "?" + RANGE, t.key()), t.id() + " on " + r.name());
                    assertForbidden(fx.get("/v1/reports/" + r.name() + "?" + RANGE + "&format=csv&granularity=all", t.key()),
                            t.id() + " csv on " + r.name());
                    continue;
                }
                for (ReportCheck c : combinations(r)) {
                    for (String format : new String[] {null, "csv"}) {
                        ReportFixture.Reply reply = fx.get(c.path(format), t.key());
                        assertEquals(200, reply.status(), c.path(format) + " -> " + reply.body());
                        for (String foreign : t.foreign()) {
                            assertFalse(reply.body().contains("\"" + foreign + "\"") || reply.body().contains("," + foreign + ",")
                                    || reply.body().contains(foreign + "-"), c.path(format) + " shows " + foreign);
                        }
                        if (format == null) {
                            rows += c.assertMatches(reply.json(), c.expected(fx.events(), Map.of(t.kind(), t.id())));
                        }
                    }
                    // naming its own id is the same report; naming another is 403, also hidden among other filters
                    ReportCheck own = c.filter(t.kind(), t.id());
                    own.assertMatches(fx.get(own.path(null), t.key()).json(), own.expected(fx.events(), Map.of()));
                    for (String foreign : t.foreign()) {
                        ReportCheck other = ReportCheck.of(r.name(), c.from, c.to).granularity(c.granularity).filter(t.kind(), foreign);
                        assertForbidden(fx.get(other.path(null), t.key()), t.id() + " asking for " + foreign, foreign + "-");
                        assertForbidden(fx.get(other.path("csv"), t.key()), t.id() + " csv for " + foreign, foreign + "-");
                    }
                }
            }
            assertTrue(rows > 0, "tenant " + t.id() + " saw no rows at all");
        }
    }

    @Test
    void a_tenant_sees_only_its_own_rollups_and_no_drift_reports() {
        JsonNode rollups = fx.get("/v1/rollups", fx.adv1Key).json();
        assertEquals("advertiser:adv1", rollups.get("role").asText());
        rollups.get("rollups").forEach(r -> assertEquals("advertiser", r.get("tenant").asText()));
        JsonNode pub = fx.get("/v1/rollups", fx.pub1Key).json();
        List<String> names = new ArrayList<>();
        pub.get("rollups").forEach(r -> names.add(r.get("name").asText()));
        assertEquals(List.of("publisher", "zone"), names);
        assertEquals(fx.cube.rollups().size(), fx.get("/v1/rollups", fx.analystKey).json().get("rollups").size());
        fx.deps.days().markReconciled(java.time.LocalDate.parse("2026-10-29"), "{\"eventsRead\":5}");
        assertForbidden(fx.get("/v1/reconcile/2026-10-29", fx.adv1Key), "drift for a tenant");
        assertForbidden(fx.get("/v1/reconcile", fx.pub1Key), "drift list for a tenant");
        assertForbidden(fx.get("/v1/reports/network?" + RANGE, fx.adv1Key), "network for an advertiser");
        assertForbidden(fx.get("/v1/reports/network?" + RANGE + "&groupBy=", fx.pub1Key), "network for a publisher");
    }

    @Test
    void tricks_with_case_encoding_and_duplicates_never_reach_another_tenant() {
        // case: advertiser ids are case-sensitive, ADV1 is another tenant
        assertForbidden(fx.get("/v1/reports/campaign?" + RANGE + "&advertiser=ADV1", fx.adv1Key), "ADV1");
        // a duplicate tenant parameter is refused before any read
        ReportFixture.Reply dup = fx.get("/v1/reports/campaign?" + RANGE + "&advertiser=adv1&advertiser=adv2", fx.adv1Key);
        assertEquals(400, dup.status());
        assertFalse(dup.body().contains("rows"));
        // encoded separators and control characters are values, not key bytes
        ReportFixture.Reply nul = fx.get("/v1/reports/campaign?" + RANGE + "&advertiser=adv1%00adv2", fx.adv1Key);
        assertEquals(400, nul.status(), nul.body());
        assertEquals("advertiser", nul.json().get("parameter").asText());
        assertForbidden(fx.get("/v1/reports/campaign?" + RANGE + "&advertiser=adv2%2Cadv1", fx.adv1Key), "comma");
        // grouping by the tenant dimension yields only the tenant itself
        JsonNode body = fx.get("/v1/reports/country?" + RANGE + "&groupBy=advertiser,country&granularity=all", fx.adv1Key).json();
        body.get("rows").forEach(r -> assertEquals("adv1", r.get("dimensions").get("advertiser").asText()));
        assertTrue(body.get("rows").size() > 0);
    }

    @Test
    void no_malformed_unknown_or_revoked_key_gets_anything_but_401() {
        ReportFixture.Reply none = fx.get("/v1/rollups", (String) null);
        assertEquals(401, none.status());
        assertEquals(401, fx.get("/v1/rollups", Map.of("Authorization", "Basic YWRtaW46YWRtaW4=")).status());
        assertEquals(401, fx.get("/v1/rollups", "ak_" + "A".repeat(43)).status());
        assertEquals(401, fx.get("/v1/rollups", "not-a-key").status());
        for (String path : List.of("/v1/rollups", "/v1/reports/campaign?" + RANGE, "/v1/reports/network?" + RANGE,
                "/v1/reconcile", "/v1/reconcile/2026-10-31", "/v1/reports/nope?" + RANGE)) {
            ReportFixture.Reply r = fx.get(path, "ak_unknown");
            assertEquals(401, r.status(), path);
            assertFalse(r.body().contains("rows"));
        }
        // revoked through this process: at once
        String key = fx.deps.keys().create("advertiser:adv2");
        assertEquals(200, fx.get("/v1/rollups", key).status());
        fx.deps.keys().revoke(key);
        assertEquals(401, fx.get("/v1/reports/campaign?" + RANGE, key).status());
    }

    @Test
    void a_key_revoked_by_another_process_stops_working_within_the_cache_time_and_one_lookup() throws InterruptedException {
        String key = fx.deps.keys().create("publisher:pub2");
        assertEquals(200, fx.get("/v1/rollups", key).status());
        ApiKeys otherProcess = ReportApi.apiKeys(new ApiKeyStore(fx.deps.connection(), fx.deps.layout(), fx.clock), fx.cube, ReportConfig.defaults(), fx.clock);
        String hash = otherProcess.revoke(ApiKeys.hash(key).substring(0, 12));
        assertEquals(ApiKeys.hash(key), hash);
        assertEquals(200, fx.get("/v1/rollups", key).status(), "still cached");
        fx.clock.advance(ReportConfig.defaults().keyCache().plus(Duration.ofMillis(1)));
        // the first request past the cache time is answered from the entry while it is read again in the background
        long lookups = fx.deps.keys().lookups();
        assertEquals(200, fx.get("/v1/rollups", key).status(), "answered from its entry while it is read again");
        Waits.until(() -> fx.get("/v1/rollups", key).status() == 401, Duration.ofMinutes(1),
                "the revoked key still works after its cache time and one refresh");
        assertEquals(lookups + 1, fx.deps.keys().lookups(), "one refresh, not one lookup per request");
        assertTrue(otherProcess.list().stream().anyMatch(k -> k.hash().equals(hash) && !k.active()));
    }

    @Test
    void the_local_analyst_key_file_is_owner_only_kept_while_valid_and_replaced_once_revoked(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("analyst.key");
        ApiKeys.KeyFile first = fx.deps.keys().ensureKeyFile(file, "analyst");
        assertTrue(first.created());
        assertEquals(first.key(), java.nio.file.Files.readString(file).trim());
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(file)));
        assertEquals(200, fx.get("/v1/reconcile", first.key()).status());
        ApiKeys.KeyFile again = fx.deps.keys().ensureKeyFile(file, "analyst");
        assertEquals(new ApiKeys.KeyFile(first.key(), false), again);
        fx.deps.keys().revoke(first.key());
        ApiKeys.KeyFile replaced = fx.deps.keys().ensureKeyFile(file, "analyst");
        assertTrue(replaced.created() && !replaced.key().equals(first.key()));
        assertEquals(401, fx.get("/v1/rollups", first.key()).status());
    }

    @Test
    void keys_are_random_256_bit_and_stored_only_as_hashes() {
        String a = fx.deps.keys().create("analyst");
        String b = fx.deps.keys().create("analyst");
        assertFalse(a.equals(b));
        assertTrue(a.matches("ak_[A-Za-z0-9_-]{43}"), a);
        Set<String> stored = Set.copyOf(fx.deps.keys().list().stream().map(ApiKeys.KeyInfo::hash).toList());
        assertTrue(stored.contains(ApiKeys.hash(a)));
        assertFalse(stored.stream().anyMatch(h -> h.contains(a.substring(3))));
        assertThrows(IllegalArgumentException.class, () -> fx.deps.keys().create("advertiser:"));
        assertThrows(IllegalArgumentException.class, () -> fx.deps.keys().create("zone:z1"));
        assertThrows(IllegalArgumentException.class, () -> fx.deps.keys().create("root"));
        assertThrows(IllegalArgumentException.class, () -> fx.deps.keys().revoke("abc"));
    }
}
