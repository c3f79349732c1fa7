package io.adreport.http.auth;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Dimension;
import io.adreport.schema.cube.Rollup;
import java.util.Objects;

/**
 * Who a key belongs to: {@code analyst} (every rollup), {@code adserver} (the ad server: the
 * serving endpoints only, no report), {@code privacy} (privacy deletions only, no report),
 * {@code ingest} (a trusted collector's {@code POST /v1/events} when {@code ingest.require.key=true},
 * nothing else), {@code internal} (the cluster's own calls between its processes, such as the
 * report API asking aggregators for live counts; nothing else), or
 * a tenant {@code KIND:ID} where KIND is a tenant
 * dimension of the cube ({@code advertiser}, {@code publisher} in the ads cube) and ID a value of
 * it.
 *
 * @param kind {@code analyst}, {@code adserver}, {@code privacy}, {@code ingest}, {@code internal} or the tenant dimension
 * @param id   the tenant's value, or null for the others
 */
public record Role(String kind, String id) {
    public static final String ANALYST = "analyst";
    public static final String ADSERVER = "adserver";
    public static final String PRIVACY = "privacy";
    public static final String INGEST = "ingest";
    public static final String INTERNAL = "internal";
    /** The roles without an id. */
    private static final java.util.Set<String> PLAIN = java.util.Set.of(ANALYST, ADSERVER, PRIVACY, INGEST, INTERNAL);

    public Role {
        Objects.requireNonNull(kind, "kind");
        if (PLAIN.contains(kind) != (id == null)) {
            throw new IllegalArgumentException("an analyst, ad server, privacy, ingest or internal key has no id; a tenant has one");
        }
    }

    public static Role analyst() {
        return new Role(ANALYST, null);
    }

    public static Role adserver() {
        return new Role(ADSERVER, null);
    }

    public static Role privacy() {
        return new Role(PRIVACY, null);
    }

    public boolean isPrivacy() {
        return kind.equals(PRIVACY);
    }

    public boolean isAnalyst() {
        return kind.equals(ANALYST);
    }

    public boolean isAdserver() {
        return kind.equals(ADSERVER);
    }

    public boolean isTenant() {
        return id != null;
    }

    /**
     * Parses {@code analyst} or {@code KIND:ID} against {@code cube}.
     *
     * @throws IllegalArgumentException naming the rule
     */
    public static Role parse(String text, Cube cube) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("role must be analyst, adserver, privacy, ingest, internal or KIND:ID");
        }
        if (PLAIN.contains(text)) {
            return new Role(text, null);
        }
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("role must be analyst, adserver, privacy, ingest, internal or KIND:ID (KIND one of "
                    + tenantKinds(cube) + "), not '" + text + "'");
        }
        String kind = text.substring(0, colon);
        String id = text.substring(colon + 1);
        if (cube.rollups().stream().noneMatch(r -> kind.equals(r.tenant()))) {
            throw new IllegalArgumentException("role kind must be one of " + tenantKinds(cube) + ", not '" + kind + "'");
        }
        Dimension d = cube.dimension(kind).orElseThrow();
        String value = d.normalizeValue(id);
        if (value.isEmpty() || value.length() > d.maxLength() || value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("role id must be 1.." + d.maxLength() + " characters without control characters");
        }
        return new Role(kind, value);
    }

    private static String tenantKinds(Cube cube) {
        return cube.rollups().stream().map(Rollup::tenant).filter(Objects::nonNull).distinct().toList().toString();
    }

    @Override
    public String toString() {
        return id == null ? kind : kind + ":" + id;
    }
}
