package io.adreport.schema.campaign;

import io.adreport.schema.table.TableLayout;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The length of a rolling frequency-cap window, written {@code <n><unit>} with unit {@code m}
 * (minutes), {@code h} (hours) or {@code d} (days): {@code 5m}, {@code 2h}, {@code 1d},
 * {@code 14d}, {@code 120d}. A view at time {@code t} is inside the window at time {@code now}
 * when {@code now - millis < t}: the window is the half-open interval {@code (now - length, now]}
 * plus any view stamped after {@code now} (clock skew counts against the device, never for it).
 *
 * @param text   the canonical text, e.g. {@code 2h}
 * @param millis the length in milliseconds
 */
public record CapWindow(String text, long millis) implements Comparable<CapWindow> {
    /** The longest window a cap may use: as long as the profile keeps a view ({@link TableLayout#VIEW_TTL_DAYS}). */
    public static final CapWindow LONGEST = new CapWindow(TableLayout.VIEW_TTL_DAYS + "d", TableLayout.VIEW_TTL_DAYS * 86_400_000L);
    private static final Pattern FORM = Pattern.compile("([1-9][0-9]{0,5})([mhd])");

    public CapWindow {
        if (millis <= 0 || millis > TableLayout.VIEW_TTL_DAYS * 86_400_000L) {
            throw new CampaignInvalid("window", "must be between 1m and 120d");
        }
    }

    /**
     * Parses {@code 5m}, {@code 2h}, {@code 14d} ...
     *
     * @throws CampaignInvalid naming {@code field} and the rule
     */
    public static CapWindow parse(String field, String text) {
        Matcher m = text == null ? null : FORM.matcher(text);
        if (m == null || !m.matches()) {
            throw new CampaignInvalid(field, "must be <number><m|h|d>, e.g. 5m, 2h, 14d, at most 120d");
        }
        long n = Long.parseLong(m.group(1));
        long unit = switch (m.group(2)) {
            case "m" -> 60_000L;
            case "h" -> 3_600_000L;
            default -> 86_400_000L;
        };
        long millis = n * unit;
        if (millis > LONGEST.millis()) {
            throw new CampaignInvalid(field, "must be at most 120d");
        }
        return new CapWindow(n + m.group(2), millis);
    }

    /** True when a view at {@code viewMillis} is inside this window at {@code nowMillis}. */
    public boolean contains(long viewMillis, long nowMillis) {
        return viewMillis > nowMillis - millis;
    }

    @Override
    public int compareTo(CapWindow o) {
        return Long.compare(millis, o.millis);
    }

    @Override
    public String toString() {
        return text;
    }
}
