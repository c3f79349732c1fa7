package io.adreport.schema.campaign;

import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One campaign of the registry: who owns it, whether it may serve, when, and how often a device
 * may see it. Identity is {@code (advertiser, campaign)}, the ads cube's campaign rollup key.
 *
 * @param advertiser owner (a tenant of the cube)
 * @param campaign   campaign id, unique within the advertiser
 * @param status     active or paused
 * @param start      first day it may serve (inclusive), or null for no start
 * @param end        last day it may serve (inclusive), or null for no end
 * @param caps       frequency caps, sorted by window length; at most one per window
 * @param version    a counter bumped by every change (the registry's optimistic check)
 * @param budget     daily and/or lifetime spend limits, or null for none
 */
public record Campaign(String advertiser, String campaign, Status status, LocalDate start, LocalDate end,
                       List<FrequencyCap> caps, long version, Budget budget) {
    public static final int MAX_CAPS = 8;
    public static final int MAX_ID_LENGTH = 64;

    public enum Status { active, paused }

    public Campaign {
        requireId("advertiser", advertiser);
        requireId("campaign", campaign);
        Objects.requireNonNull(status, "status");
        if (start != null && end != null && end.isBefore(start)) {
            throw new CampaignInvalid("end", "must not be before start");
        }
        caps = caps.stream().sorted(Comparator.comparing(FrequencyCap::window)).toList();
        if (caps.size() > MAX_CAPS) {
            throw new CampaignInvalid("frequencyCaps", "at most " + MAX_CAPS + " caps");
        }
        for (int i = 1; i < caps.size(); i++) {
            if (caps.get(i).window().millis() == caps.get(i - 1).window().millis()) {
                throw new CampaignInvalid("frequencyCaps.window", "each window at most once (" + caps.get(i).window() + ")");
            }
        }
    }

    /** A campaign without a budget. */
    public Campaign(String advertiser, String campaign, Status status, LocalDate start, LocalDate end, List<FrequencyCap> caps,
                    long version) {
        this(advertiser, campaign, status, start, end, caps, version, null);
    }

    /** {@code advertiser/campaign}: how the serving API names a campaign. */
    public String key() {
        return advertiser + "/" + campaign;
    }

    /** True when the campaign may serve on {@code day}: active and within its dates. */
    public boolean servesOn(LocalDate day) {
        return status == Status.active && (start == null || !day.isBefore(start)) && (end == null || !day.isAfter(end));
    }

    /** The same campaign at another version. */
    public Campaign withVersion(long v) {
        return new Campaign(advertiser, campaign, status, start, end, caps, v, budget);
    }

    /** The same campaign with another budget (null: none). */
    public Campaign withBudget(Budget b) {
        return new Campaign(advertiser, campaign, status, start, end, caps, version, b);
    }

    static void requireId(String field, String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_ID_LENGTH) {
            throw new CampaignInvalid(field, "must be 1.." + MAX_ID_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c) || c == '/') {
                throw new CampaignInvalid(field, "must not contain '/' or control characters");
            }
        }
    }
}
