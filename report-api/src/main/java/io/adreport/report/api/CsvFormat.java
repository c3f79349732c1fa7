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
        StringBuilder sb = new StringBuilder(header(groupBy, metrics, withTime));
        for (ReportResponse.Row row : r.rows()) {
            sb.append(line(row, groupBy, metrics, withTime));
        }
        return sb.toString();
    }

    /** The header line, CRLF included. */
    static String header(List<String> groupBy, List<String> metrics, boolean withTime) {
        List<String> header = new ArrayList<>();
        if (withTime) {
            header.add("time");
        }
        groupBy.forEach(d -> header.add(cell(d)));
        metrics.forEach(m -> header.add(cell(m)));
        return String.join(",", header) + "\r\n";
    }

    /** One row's line, CRLF included. */
    static String line(ReportResponse.Row row, List<String> groupBy, List<String> metrics, boolean withTime) {
        StringBuilder sb = new StringBuilder(64);
        if (withTime) {
            sb.append(row.time());
        }
        boolean first = !withTime;
        for (String d : groupBy) {
            sb.append(first ? "" : ",").append(cell(defuse(row.dimensions().get(d))));
            first = false;
        }
        Map<String, Number> values = row.metrics();
        for (String m : metrics) {
            Number v = values.get(m);
            sb.append(first ? "" : ",").append(v == null ? "" : v.toString());
            first = false;
        }
        return sb.append("\r\n").toString();
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
