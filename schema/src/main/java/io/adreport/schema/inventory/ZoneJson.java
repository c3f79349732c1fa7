package io.adreport.schema.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.adreport.schema.campaign.CampaignInvalid;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The one JSON form of a {@link ZoneInventory}, for {@code PUT/GET /v1/zones/{site}/{zone}} and
 * the zones table:
 * <pre>{"ads": [{"advertiser": "adv1", "campaign": "c1", "creative": "cr1", "ecpmMicros": 2500000,
 *           "keywords": ["shoes", "running"]}]}</pre>
 */
public final class ZoneJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> AD_FIELDS = Set.of("advertiser", "campaign", "creative", "ecpmMicros", "keywords");

    private ZoneJson() {
    }

    /** @throws CampaignInvalid naming the field and the rule */
    public static ZoneInventory parse(String site, String zone, byte[] json, long version) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new CampaignInvalid("body", "must be a JSON object {\"ads\": [...]}");
        }
        if (root == null || !root.isObject() || !root.path("ads").isArray()) {
            throw new CampaignInvalid("ads", "must be an array of {advertiser, campaign, creative, ecpmMicros, keywords?}");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!Set.of("site", "zone", "ads", "version").contains(f)) {
                throw new CampaignInvalid(f, "unknown field (allowed: ads)");
            }
        }
        List<Ad> ads = new ArrayList<>();
        for (JsonNode a : root.get("ads")) {
            if (!a.isObject()) {
                throw new CampaignInvalid("ads", "each ad must be an object");
            }
            for (Iterator<String> it = a.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!AD_FIELDS.contains(f)) {
                    throw new CampaignInvalid("ads." + f, "unknown field (allowed: " + AD_FIELDS + ")");
                }
            }
            List<String> keywords = new ArrayList<>();
            JsonNode k = a.get("keywords");
            if (k != null && !k.isNull()) {
                if (!k.isArray()) {
                    throw new CampaignInvalid("ads.keywords", "must be an array of strings");
                }
                for (JsonNode w : k) {
                    if (!w.isTextual() || w.asText().isBlank() || w.asText().length() > 64) {
                        throw new CampaignInvalid("ads.keywords", "each keyword must be a string of 1..64 characters");
                    }
                    keywords.add(w.asText());
                }
            }
            JsonNode ecpm = a.get("ecpmMicros");
            if (ecpm == null || !ecpm.isIntegralNumber()) {
                throw new CampaignInvalid("ads.ecpmMicros", "must be a positive integer");
            }
            ads.add(new Ad(id(a, "advertiser"), id(a, "campaign"), id(a, "creative"), ecpm.asLong(), keywords));
        }
        return new ZoneInventory(site, zone, ads, version);
    }

    public static byte[] write(ZoneInventory z) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("site", z.site()).put("zone", z.zone()).put("version", z.version());
        var ads = o.putArray("ads");
        for (Ad a : z.ads()) {
            ObjectNode n = ads.addObject().put("advertiser", a.advertiser()).put("campaign", a.campaign())
                    .put("creative", a.creative()).put("ecpmMicros", a.ecpmMicros());
            a.keywords().forEach(n.putArray("keywords")::add);
        }
        return o.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static ZoneInventory read(byte[] stored) {
        try {
            JsonNode root = MAPPER.readTree(stored);
            return parse(root.get("site").asText(), root.get("zone").asText(), stored, root.path("version").asLong());
        } catch (IOException e) {
            throw new IllegalStateException("unreadable zone record", e);
        }
    }

    private static String id(JsonNode a, String field) {
        JsonNode n = a.get(field);
        if (n == null || !n.isTextual() || n.asText().isEmpty() || n.asText().length() > 64 || n.asText().contains("/")) {
            throw new CampaignInvalid("ads." + field, "must be a string of 1..64 characters without '/'");
        }
        return n.asText();
    }
}
