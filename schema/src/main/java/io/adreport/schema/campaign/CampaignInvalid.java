package io.adreport.schema.campaign;

import io.adreport.schema.input.InputInvalid;

/**
 * A campaign definition that breaks a rule. {@link #getMessage()} is {@code "field: rule"}, the
 * form the API returns to clients (as for events); {@link #name()} is the field.
 */
public final class CampaignInvalid extends InputInvalid {
    public CampaignInvalid(String field, String rule) {
        super(field, rule);
    }
}
