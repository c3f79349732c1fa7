package io.adreport.http.auth;

/** The caller is known but may not see what it asked for: 403, with no data. */
public final class AccessDenied extends RuntimeException {
    public AccessDenied(String message) {
        super(message);
    }
}
