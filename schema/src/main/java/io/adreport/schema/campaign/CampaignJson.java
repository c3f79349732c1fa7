package io.adreport.schema.campaign;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The one JSON form of a {@link Campaign}: what {@code PUT /v1/campaigns/{advertiser}/{campaign}}
 * accepts, what {@code GET} answers, and what the registry table stores.
 *
 * <pre>{"status": "active", "start": "2026-12-01", "end": "2026-12-31",
 *  "frequencyCaps": [{"max": 1, "window": "5m"}, {"max": 5, "window": "1d"}],
 *  "budget": {"dailyMicros": 50000000, "lifetimeMicros": 1000000000, "timeZone": "America/New_York"}}</pre>
 *
 * In {@code budget} either amount may be left out (not both); {@code timeZone} defaults to UTC.
 *
 * Unknown fields are refused (a misspelt {@code frequencyCap} must not silently mean "no caps").
 */
public final class CampaignJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("advertiser", "campaign", "status", "start", "end", "frequencyCaps", "version", "budget");

    private CampaignJson() {
    }

    /**
     * Parses a definition of {@code advertiser/campaign} at {@code version}. Identity fields in
     * the body, if present, must match.
     *
     * @throws CampaignInvalid naming the field and the rule
     */
    public static Campaign parse(String advertiser, String campaign, byte[] json, long version) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (java.io.IOException e) {
            throw new CampaignInvalid("body", "must be a JSON object");
        }
        if (root == null || !root.isObject()) {
            throw new CampaignInvalid("body", "must be a JSON object");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new CampaignInvalid(f, "unknown field (allowed: status, start, end, frequencyCaps, budget)");
            }
        }
        sameIdentity(root, "advertiser", advertiser);
        sameIdentity(root, "campaign", campaign);
        Campaign.Status status = Campaign.Status.active;
        JsonNode s = root.get("status");
        if (s != null && !s.isNull()) {
            if (!s.isTextual() || !(s.asText().equals("active") || s.asText().equals("paused"))) {
                throw new CampaignInvalid("status", "must be active or paused");
            }
            status = Campaign.Status.valueOf(s.asText());
        }
        List<FrequencyCap> caps = new ArrayList<>();
        JsonNode fc = root.get("frequencyCaps");
        if (fc != null && !fc.isNull()) {
            if (!fc.isArray()) {
                throw new CampaignInvalid("frequencyCaps", "must be an array of {max, window}");
            }
            for (JsonNode c : fc) {
                if (!c.isObject() || c.size() != 2 || !c.has("max") || !c.has("window")) {
                    throw new CampaignInvalid("frequencyCaps", "each cap must be {\"max\": N, \"window\": \"5m|2h|14d...\"}");
                }
                JsonNode max = c.get("max");
                if (!max.isIntegralNumber() || !max.canConvertToInt()) {
                    throw new CampaignInvalid("frequencyCaps.max", "must be an integer between 1 and " + FrequencyCap.MAX_VIEWS);
                }
                JsonNode w = c.get("window");
                caps.add(new FrequencyCap(max.asInt(), CapWindow.parse("frequencyCaps.window", w.isTextual() ? w.asText() : null)));
            }
        }
        return new Campaign(advertiser, campaign, status, day(root, "start"), day(root, "end"), caps, version, budget(root.get("budget")));
    }

    private static final Set<String> BUDGET_FIELDS = Set.of("dailyMicros", "lifetimeMicros", "timeZone");

    private static Budget budget(JsonNode b) {
        if (b == null || b.isNull()) {
            return null;
        }
        if (!b.isObject()) {
            throw new CampaignInvalid("budget", "must be an object {dailyMicros?, lifetimeMicros?, timeZone?}");
        }
        for (Iterator<String> it = b.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!BUDGET_FIELDS.contains(f)) {
                throw new CampaignInvalid("budget." + f, "unknown field (allowed: dailyMicros, lifetimeMicros, timeZone)");
            }
        }
        ZoneId zone = Budget.UTC;
        JsonNode tz = b.get("timeZone");
        if (tz != null && !tz.isNull()) {
            try {
                zone = ZoneId.of(tz.isTextual() ? tz.asText() : "");
            } catch (DateTimeException e) {
                throw new CampaignInvalid("budget.timeZone", "must be an IANA time zone such as Europe/Paris or UTC");
            }
        }
        return new Budget(micros(b, "dailyMicros"), micros(b, "lifetimeMicros"), zone);
    }

    private static long micros(JsonNode b, String field) {
        JsonNode n = b.get(field);
        if (n == null || n.isNull()) {
            return 0;
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 1 || n.asLong() > Budget.MAX_MICROS) {
            throw new CampaignInvalid("budget." + field, "must be an integer between 1 and " + Budget.MAX_MICROS + " (micros)");
        }
        return n.asLong();
    }

    /** The stored and answered form, identity and version included. */
    public static byte[] write(Campaign c) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("advertiser", c.advertiser());
        o.put("campaign", c.campaign());
        o.put("status", c.status().name());
        o.put("start", c.start() == null ? null : c.start().toString());
        o.put("end", c.end() == null ? null : c.end().toString());
        ArrayNode caps = o.putArray("frequencyCaps");
        for (FrequencyCap cap : c.caps()) {
            caps.addObject().put("max", cap.max()).put("window", cap.window().text());
        }
        if (c.budget() != null) {
            ObjectNode b = o.putObject("budget");
            if (c.budget().hasDaily()) {
                b.put("dailyMicros", c.budget().dailyMicros());
            }
            if (c.budget().hasLifetime()) {
                b.put("lifetimeMicros", c.budget().lifetimeMicros());
            }
            b.put("timeZone", c.budget().timeZone().getId());
        }
        o.put("version", c.version());
        try {
            return MAPPER.writeValueAsString(o).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a stored form back. */
    public static Campaign read(byte[] stored) {
        try {
            JsonNode root = MAPPER.readTree(stored);
            return parse(root.get("advertiser").asText(), root.get("campaign").asText(), stored, root.path("version").asLong());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("unreadable campaign record", e);
        }
    }

    private static void sameIdentity(JsonNode root, String field, String expected) {
        JsonNode n = root.get(field);
        if (n != null && !(n.isTextual() && n.asText().equals(expected))) {
            throw new CampaignInvalid(field, "must match the path (" + expected + ") or be left out");
        }
    }

    private static LocalDate day(JsonNode root, String field) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        try {
            return LocalDate.parse(n.asText());
        } catch (DateTimeParseException e) {
            throw new CampaignInvalid(field, "must be a day YYYY-MM-DD");
        }
    }
}
