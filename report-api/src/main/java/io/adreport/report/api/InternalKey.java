package io.adreport.report.api;

import io.adreport.http.auth.ApiKeys;
import io.adreport.http.auth.Role;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The credential this report API presents to aggregators for their live counts: a key of role
 * {@code internal}, created in the meta table when the API is built (only its hash is
 * stored, as for every key) and revoked when the server stops. Aggregators check it against the
 * same meta table, so nothing has to be configured or distributed; a process that dies without
 * stopping leaves a key whose secret died with it. A creation that fails (HBase unavailable) is
 * tried again at the next exchange.
 */
final class InternalKey {
    private static final Logger LOG = LoggerFactory.getLogger(InternalKey.class);

    private final ApiKeys keys;
    private String key;

    InternalKey(ApiKeys keys) {
        this.keys = keys;
    }

    synchronized String get() {
        if (key == null) {
            key = keys.create(Role.INTERNAL);
        }
        return key;
    }

    /** Creates the key now if it can; a failure is logged and creation tried again on use. */
    void warm() {
        try {
            get();
        } catch (RuntimeException e) {
            LOG.warn("could not create this report API's internal key yet: {}", e.toString());
        }
    }

    synchronized void revoke() {
        if (key != null) {
            try {
                keys.revoke(key);
            } catch (RuntimeException e) {
                LOG.warn("could not revoke this report API's internal key: {}", e.toString());
            }
            key = null;
        }
    }
}
