package io.adreport.report.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.adreport.report.query.ReportGranularity;
import io.adreport.report.query.ReportQuery;
import io.adreport.report.query.ReportRow;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.adreport.http.ErrorMapper;

/**
 * Writes a streamed report ({@code format=csv} or {@code format=ndjson}) row by row to a buffered
 * stream; nothing of the answer is held beyond the stream's buffer.
 *
 * <p>ndjson: one row object per line, {@code {"time","dimensions","metrics"}} as in the JSON
 * answer ({@code time} absent for granularity all), then one trailer line
 * {@code {"rows": N, "days": {...}}} — the freshness marks with {@code asOf} — which is also how a
 * reader knows the answer is complete. A failure after the first byte writes an
 * {@code {"error", "parameter"}} line instead of the trailer. CSV has no room for a trailer: the
 * same day statuses travel in the {@code Adreport-Days} header of both formats.
 */
abstract class ExportWriter {
    final OutputStream out;
    final ReportQuery q;
    final ZoneId zone;

    private ExportWriter(OutputStream out, ReportQuery q) {
        this.out = out;
        this.q = q;
        this.zone = q.zone();
    }

    static ExportWriter of(String format, OutputStream out, ReportQuery q, ObjectMapper mapper) {
        return format.equals("csv") ? new Csv(out, q) : new Ndjson(out, q, mapper);
    }

    abstract String contentType();

    /** Whatever comes before the first row. */
    abstract void begin() throws IOException;

    abstract void row(ReportRow row) throws IOException;

    /** The end of a complete answer. */
    abstract void end(long rows, Map<String, ReportResponse.Day> days) throws IOException;

    /** The end of an answer cut off by a failure after the status was sent. */
    abstract void fail(String error, String parameter) throws IOException;

    final ReportResponse.Row shape(ReportRow r) {
        return new ReportResponse.Row(r.time() == null ? null : ReportController.iso(r.time(), zone), r.dimensions(), r.metrics());
    }

    private static final class Csv extends ExportWriter {
        private final boolean withTime;

        Csv(OutputStream out, ReportQuery q) {
            super(out, q);
            this.withTime = q.granularity() != ReportGranularity.ALL;
        }

        @Override
        String contentType() {
            return "text/csv; charset=utf-8";
        }

        @Override
        void begin() throws IOException {
            out.write(CsvFormat.header(q.groupBy(), q.metrics(), withTime).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        void row(ReportRow row) throws IOException {
            out.write(CsvFormat.line(shape(row), q.groupBy(), q.metrics(), withTime).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        void end(long rows, Map<String, ReportResponse.Day> days) {
        }

        @Override
        void fail(String error, String parameter) {
            // no in-band error in CSV: the connection is cut without the final chunk
        }
    }

    private static final class Ndjson extends ExportWriter {
        private final ObjectWriter rows;
        private final ObjectWriter any;

        Ndjson(OutputStream out, ReportQuery q, ObjectMapper mapper) {
            super(out, q);
            this.rows = mapper.writerFor(ReportResponse.Row.class);
            this.any = mapper.writer();
        }

        @Override
        String contentType() {
            return "application/x-ndjson; charset=utf-8";
        }

        @Override
        void begin() {
        }

        @Override
        void row(ReportRow row) throws IOException {
            out.write(rows.writeValueAsBytes(shape(row)));
            out.write('\n');
        }

        @Override
        void end(long count, Map<String, ReportResponse.Day> days) throws IOException {
            Map<String, Object> trailer = new LinkedHashMap<>();
            trailer.put("rows", count);
            trailer.put("days", days);
            out.write(any.writeValueAsBytes(trailer));
            out.write('\n');
        }

        @Override
        void fail(String error, String parameter) throws IOException {
            out.write(any.writeValueAsBytes(new ErrorMapper.ErrorBody(error, parameter)));
            out.write('\n');
        }
    }

    /**
     * The {@code Adreport-Days} header: runs of consecutive UTC days with one status,
     * {@code 2026-10-01..2026-10-30=reconciled, 2026-10-31=live}. Past {@value #MAX_HEADER}
     * characters (a range alternating between statuses for years) the rest is replaced by
     * {@code , ...}; the ndjson trailer always has every day.
     */
    static final int MAX_HEADER = 4000;

    static String daysHeader(Map<String, ReportResponse.Day> days) {
        StringBuilder sb = new StringBuilder();
        List<Map.Entry<String, ReportResponse.Day>> list = List.copyOf(days.entrySet());
        int i = 0;
        while (i < list.size()) {
            int j = i;
            String status = list.get(i).getValue().status();
            while (j + 1 < list.size() && list.get(j + 1).getValue().status().equals(status)
                    && java.time.LocalDate.parse(list.get(j + 1).getKey()).equals(java.time.LocalDate.parse(list.get(j).getKey()).plusDays(1))) {
                j++;
            }
            String run = list.get(i).getKey() + (j > i ? ".." + list.get(j).getKey() : "") + "=" + status;
            if (sb.length() + run.length() + 2 > MAX_HEADER) {
                return sb.append(", ...").toString();
            }
            sb.append(sb.length() == 0 ? "" : ", ").append(run);
            i = j + 1;
        }
        return sb.toString();
    }
}
