package io.adreport.schema.input;

/**
 * A client's input that breaks a rule: a request parameter or a field of a request body, named by
 * {@link #name()}. {@link #getMessage()} is {@code "name: rule"}, the form the APIs return to
 * clients; the HTTP error mapper answers every one of them 400 naming the input. Subclasses say
 * which kind of input it was (a report query, a campaign definition).
 */
public abstract class InputInvalid extends IllegalArgumentException {
    private final String name;

    protected InputInvalid(String name, String rule) {
        super(name + ": " + rule);
        this.name = name;
    }

    /** The parameter or field that breaks the rule. */
    public String name() {
        return name;
    }
}
