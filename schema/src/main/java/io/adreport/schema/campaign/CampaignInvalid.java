package io.adreport.schema.campaign;

/**
 * A campaign definition that breaks a rule. {@link #getMessage()} is {@code "field: rule"}, the
 * form the API returns to clients (as for events).
 */
public final class CampaignInvalid extends IllegalArgumentException {
    private final String field;

    public CampaignInvalid(String field, String rule) {
        super(field + ": " + rule);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
