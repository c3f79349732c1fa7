package io.adreport.report.query;

import java.util.List;

/**
 * The answer to a {@link ReportQuery}.
 *
 * @param query the query answered
 * @param plan  how it was read
 * @param rows  ordered and limited rows
 */
public record ReportResult(ReportQuery query, QueryPlan plan, List<ReportRow> rows) {
    public ReportResult {
        rows = List.copyOf(rows);
    }
}
