package io.adreport.report.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CsvFormatTest {
    @Test
    void values_are_quoted_per_rfc_4180_and_formulas_are_defused() {
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("impressions", 3L);
        metrics.put("ctr", null);
        ReportResponse r = new ReportResponse("campaign", "a", "b", "all", "UTC", List.of(
                new ReportResponse.Row(null, Map.of("campaign", "a,\"b\""), metrics),
                new ReportResponse.Row(null, Map.of("campaign", "=HYPERLINK(\"x\")"), metrics),
                new ReportResponse.Row(null, Map.of("campaign", ""), metrics)), Map.of());
        assertEquals("campaign,impressions,ctr\r\n"
                + "\"a,\"\"b\"\"\",3,\r\n"
                + "\"'=HYPERLINK(\"\"x\"\")\",3,\r\n"
                + ",3,\r\n", CsvFormat.write(r, List.of("campaign"), List.of("impressions", "ctr"), false));
    }
}
