package io.adreport.campaigns;

import io.adreport.http.auth.AccessDenied;
import io.adreport.http.auth.Role;
import io.adreport.schema.inventory.ZoneInventory;
import io.adreport.schema.inventory.ZoneJson;
import io.adreport.schema.inventory.ZoneStore;
import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import java.io.IOException;
import io.adreport.http.BearerAuth;

/**
 * Zone inventories over HTTP: {@code PUT/GET /v1/zones/{site}/{zone}}. The site is a publisher:
 * a {@code publisher:ID} key manages the zones of site ID only, an analyst all. The body lists the
 * ads the zone may show ({@link ZoneJson}); serving nodes pick them up within one registry refresh.
 */
final class ZoneController {
    private static final String PUBLISHER = "publisher";
    private final ZoneStore store;

    ZoneController(ZoneStore store) {
        this.store = store;
    }

    void put(Context ctx) throws IOException {
        String site = ctx.pathParam("site");
        String zone = ctx.pathParam("zone");
        requireOwner(BearerAuth.role(ctx), site);
        ZoneInventory stored = store.put(ZoneJson.parse(site, zone, ctx.bodyAsBytes(), 0));
        ctx.status(stored.version() == 1 ? 201 : 200).contentType("application/json").result(ZoneJson.write(stored));
    }

    void get(Context ctx) throws IOException {
        String site = ctx.pathParam("site");
        String zone = ctx.pathParam("zone");
        requireOwner(BearerAuth.role(ctx), site);
        ZoneInventory z = store.get(site, zone).orElseThrow(() -> new NotFoundResponse("no zone " + site + "/" + zone));
        ctx.contentType("application/json").result(ZoneJson.write(z));
    }

    private static void requireOwner(Role role, String site) {
        if (role.isAnalyst()) {
            return;
        }
        if (!PUBLISHER.equals(role.kind()) || !role.id().equals(site)) {
            throw new AccessDenied("a zone is managed by its site's publisher key (publisher:" + site + ") or an analyst");
        }
    }
}
