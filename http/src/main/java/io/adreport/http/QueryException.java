package io.adreport.http;

import io.adreport.schema.input.InputInvalid;

/**
 * A report that cannot be answered as asked (too large, not aligned): the caller's fault, so the
 * API answers 400 naming the parameter ({@link #name()}).
 */
public final class QueryException extends InputInvalid {
    public QueryException(String parameter, String rule) {
        super(parameter, rule);
    }
}
