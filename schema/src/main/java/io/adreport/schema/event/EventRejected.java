package io.adreport.schema.event;

/**
 * An event that breaks a rule. {@link #getMessage()} is {@code "field: rule"}, the form the
 * ingest API returns to clients.
 */
public final class EventRejected extends Exception {
    private final String field;
    private final String rule;

    public EventRejected(String field, String rule) {
        super(field + ": " + rule, null, false, false);
        this.field = field;
        this.rule = rule;
    }

    public String field() {
        return field;
    }

    public String rule() {
        return rule;
    }

    /** A short, bounded label for metrics: the field, never the value. */
    public String reason() {
        return field;
    }
}
