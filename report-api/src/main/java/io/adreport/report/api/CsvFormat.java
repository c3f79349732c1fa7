package io.adreport.report.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * CSV of a report: one header line ({@code time} unless granularity is all, the groupBy
 * dimensions, the metrics) and one line per row, RFC 4180 quoting. Dimension values that a
 * spreadsheet would run as a formula (starting with {@code = + - @}) get a leading apostrophe:
 * they come from untrusted beacons.
 */
final class CsvFormat {
    private CsvFormat() {
    }

    static String write(ReportResponse r, List<String> groupBy, List<String> metrics, boolean withTime) {
        StringBuilder sb = new StringBuilder();
        List<String> header = new ArrayList<>();
        if (withTime) {
            header.add("time");
        }
        groupBy.forEach(d -> header.add(cell(d)));
        metrics.forEach(m -> header.add(cell(m)));
        sb.append(String.join(",", header)).append("\r\n");
        for (ReportResponse.Row row : r.rows()) {
            List<String> line = new ArrayList<>(header.size());
            if (withTime) {
                line.add(row.time());
            }
            for (String d : groupBy) {
                line.add(cell(defuse(row.dimensions().get(d))));
            }
            Map<String, Number> values = row.metrics();
            for (String m : metrics) {
                Number v = values.get(m);
                line.add(v == null ? "" : v.toString());
            }
            sb.append(String.join(",", line)).append("\r\n");
        }
        return sb.toString();
    }

    private static String defuse(String v) {
        return !v.isEmpty() && "=+-@".indexOf(v.charAt(0)) >= 0 ? "'" + v : v;
    }

    private static String cell(String v) {
        if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0) {
            return '"' + v.replace("\"", "\"\"") + '"';
        }
        return v;
    }
}
