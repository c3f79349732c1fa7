package io.adreport.report.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.adreport.http.RecordSchemas;
import java.util.List;
import java.util.Map;

/**
 * The JSON body of a report.
 *
 * @param rollup      rollup name
 * @param from        start, ISO-8601 with the zone's offset
 * @param to          end (exclusive), likewise
 * @param granularity hour, day, month or all
 * @param tz          the zone
 * @param rows        result rows
 * @param days        every UTC day the range touches: live (counters still moving) or reconciled
 *                    (exact, recomputed from raw events)
 */
@RecordSchemas.Name("Report")
public record ReportResponse(String rollup, String from, String to, String granularity, String tz,
                             List<Row> rows, Map<String, Day> days) {

    /**
     * @param time       bucket start with the zone's offset; absent for granularity all
     * @param dimensions groupBy values
     * @param metrics    metric values (derived ones null on a zero denominator)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RecordSchemas.Name("ReportRow")
    public record Row(@RecordSchemas.Nullable String time, Map<String, String> dimensions, Map<String, Number> metrics) {
    }

    /** @param status live or reconciled; @param asOf when the numbers were true */
    @RecordSchemas.Name("ReportDay")
    public record Day(String status, @RecordSchemas.Nullable String asOf) {
    }
}
