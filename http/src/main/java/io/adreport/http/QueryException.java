package io.adreport.http;

/**
 * A report that cannot be answered as asked (too large, not aligned): the caller's fault, so the
 * API answers 400 naming {@link #parameter()}.
 */
public final class QueryException extends RuntimeException {
    private final String parameter;

    public QueryException(String parameter, String rule) {
        super(parameter + ": " + rule);
        this.parameter = parameter;
    }

    public String parameter() {
        return parameter;
    }
}
