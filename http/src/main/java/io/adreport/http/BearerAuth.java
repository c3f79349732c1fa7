package io.adreport.http;

import io.adreport.http.auth.ApiKeys;
import io.adreport.http.auth.Role;
import io.javalin.http.Context;
import io.javalin.http.UnauthorizedResponse;
import java.util.Optional;

/** Before-handler of every {@code /v1} route: resolves {@code Authorization: Bearer KEY} to a {@link Role}. */
public final class BearerAuth {
    private static final String ROLE = "adreport.role";
    private final ApiKeys keys;

    public BearerAuth(ApiKeys keys) {
        this.keys = keys;
    }

    public void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new UnauthorizedResponse("an API key is required: Authorization: Bearer KEY");
        }
        Optional<Role> role = keys.authenticate(header.substring(7).trim());
        if (role.isEmpty()) {
            throw new UnauthorizedResponse("unknown or revoked API key");
        }
        ctx.attribute(ROLE, role.get());
    }

    /** The caller's role; only inside a {@code /v1} handler. */
    /** The role the before-handler resolved for this request (public for routes mounted from other modules). */
    public static Role role(Context ctx) {
        Role r = ctx.attribute(ROLE);
        if (r == null) {
            throw new UnauthorizedResponse("an API key is required: Authorization: Bearer KEY");
        }
        return r;
    }
}
