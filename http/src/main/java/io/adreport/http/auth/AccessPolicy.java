package io.adreport.http.auth;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Rollup;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tenant isolation, in one place. An analyst reads everything. A tenant key
 * ({@code advertiser:A}) reads only rollups whose tenant dimension is its kind, and only with
 * that dimension fixed to its own id: {@link #restrict} adds the filter, so every read path —
 * point lookups and scans alike — is confined to the tenant's rows by the row-key prefix, not by
 * post-filtering. Asking for another id, another kind's rollup or a tenant-less rollup
 * ({@code network}) is refused before anything is read.
 */
public final class AccessPolicy {
    private final Cube cube;

    public AccessPolicy(Cube cube) {
        this.cube = cube;
    }

    public boolean canRead(Role role, Rollup rollup) {
        return role.isAnalyst() || role.kind().equals(rollup.tenant());
    }

    /** Rollups {@code role} may read, in cube order. */
    public List<Rollup> readable(Role role) {
        return cube.rollups().stream().filter(r -> canRead(role, r)).toList();
    }

    public void requireAnalyst(Role role, String what) {
        if (!role.isAnalyst()) {
            throw new AccessDenied(what + " is for analyst keys only");
        }
    }

    /**
     * The filters to read with: {@code filters} plus, for a tenant, its own id on the tenant
     * dimension.
     *
     * @throws AccessDenied when the rollup is not the tenant's or a filter names another tenant
     */
    public Map<String, String> restrict(Role role, Rollup rollup, Map<String, String> filters) {
        if (role.isAnalyst()) {
            return filters;
        }
        if (!canRead(role, rollup)) {
            throw new AccessDenied("rollup " + rollup.name() + " is not readable by a " + role.kind() + " key");
        }
        String asked = filters.get(rollup.tenant());
        if (asked != null && !asked.equals(role.id())) {
            throw new AccessDenied(rollup.tenant() + ": this key may only read its own " + rollup.tenant());
        }
        Map<String, String> out = new LinkedHashMap<>(filters);
        out.put(rollup.tenant(), role.id());
        return out;
    }
}
