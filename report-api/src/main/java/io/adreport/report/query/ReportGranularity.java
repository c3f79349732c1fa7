package io.adreport.report.query;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Width of a report's time buckets, cut in the report's time zone. */
public enum ReportGranularity {
    HOUR, DAY, MONTH,
    /** One bucket: the whole range [from, to). */
    ALL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The labels of all granularities, in declaration order: the values a report accepts. */
    public static List<String> labels() {
        return Arrays.stream(values()).map(ReportGranularity::label).toList();
    }

    /** The granularity named {@code label}, or null. */
    public static ReportGranularity fromLabel(String label) {
        for (ReportGranularity g : values()) {
            if (g.label().equals(label)) {
                return g;
            }
        }
        return null;
    }
}
