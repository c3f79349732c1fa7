package io.adreport.schema.meta;

import java.time.Instant;

/** An API key's row of the meta table, as {@link ApiKeyStore} reads it: its hash, role and times. */
public record KeyRecord(String hash, String role, Instant createdAt, Instant revokedAt) {
    public boolean active() {
        return revokedAt == null;
    }
}
