package io.adreport.report.api;

import io.adreport.schema.time.UtcDay;
import io.adreport.http.auth.AccessPolicy;
import io.adreport.http.auth.Role;
import io.adreport.report.query.ReportEngine;
import io.adreport.report.query.ReportQuery;
import io.adreport.report.query.ReportResult;
import io.adreport.report.query.ReportRow;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.hbase.AsyncReads;
import io.adreport.report.query.ExportReader;
import io.adreport.http.QueryException;
import io.adreport.http.ReadFailure;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.javalin.http.NotFoundResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import io.adreport.http.BearerAuth;

/**
 * {@code GET /v1/reports/{rollup}}: parse, authorize, run, and answer in JSON, CSV or NDJSON.
 *
 * <p>JSON is one document built in memory, so it keeps the row caps. CSV and NDJSON are streamed
 * by {@link ExportReader}: every row, no {@code report.max.result.rows} cap, constant memory (see
 * there for the bound). A top-N ({@code orderBy} or {@code limit}) or a single fixed series is
 * still answered by the engine (capped like JSON) and only written in the export format. The
 * status is sent once the export's first reads are open, so errors up to then are ordinary
 * 400 / 503 answers; a failure after that cuts the stream (see {@link ExportWriter}).
 */
final class ReportController {
    private static final Logger LOG = LoggerFactory.getLogger(ReportController.class);
    /** Response bytes buffered before a write reaches the socket. */
    private static final int OUT_BUFFER = 64 * 1024;

    private final Cube cube;
    private final ReportParams params;
    private final AccessPolicy policy;
    private final ReportEngine engine;
    private final DayStatusStore meta;
    private final Clock clock;
    private final ExportReader exporter;
    private final ObjectMapper mapper;
    private final AsyncReads async;

    ReportController(Cube cube, ReportParams params, AccessPolicy policy, ReportEngine engine, ExportReader exporter,
                     DayStatusStore meta, AsyncReads async, Clock clock, ObjectMapper mapper) {
        this.async = async;
        this.exporter = exporter;
        this.mapper = mapper;
        this.cube = cube;
        this.params = params;
        this.policy = policy;
        this.engine = engine;
        this.meta = meta;
        this.clock = clock;
    }

    void report(Context ctx) throws IOException {
        Role role = BearerAuth.role(ctx);
        Rollup rollup = cube.rollup(ctx.pathParam("rollup"))
                .orElseThrow(() -> new NotFoundResponse("unknown rollup; see GET /v1/rollups"));
        if (!policy.canRead(role, rollup)) {
            throw new io.adreport.http.auth.AccessDenied("rollup " + rollup.name() + " is not readable by this key");
        }
        String format = params.format(ctx);
        ReportQuery asked = params.parse(ctx, rollup);
        ReportQuery q = asked.withFilters(policy.restrict(role, rollup, asked.filters()));
        if (format.equals("json")) {
            Supplier<Map<String, ReportResponse.Day>> days = days(q.from(), q.to()); // read while the counters are read
            ReportResult result = engine.run(q);
            ctx.json(response(q, result, days.get()));
        } else {
            export(ctx, format, q);
        }
    }

    private void export(Context ctx, String format, ReportQuery q) throws IOException {
        Map<String, ReportResponse.Day> days = days(q.from(), q.to()).get();
        if (q.orderBy() != null || q.limit() != null || q.singleSeries()) {
            ReportResult result = engine.run(q);
            ExportWriter w = begin(ctx, format, q, days, "engine");
            for (ReportRow r : result.rows()) {
                w.row(r);
            }
            w.end(result.rows().size(), days);
            w.out.flush();
            return;
        }
        try (ExportReader.Export export = exporter.open(q, engine.plan(q))) {
            ExportWriter w = begin(ctx, format, q, days, export.strategy());
            boolean[] first = {true};
            try {
                long rows = export.writeTo(row -> {
                    w.row(row);
                    if (first[0]) {
                        first[0] = false;
                        w.out.flush(); // the first row goes out at once; the rest fill the buffer
                    }
                });
                w.end(rows, days);
                w.out.flush();
            } catch (QueryException | ReadFailure e) {
                // the status is sent: say so in-band where the format can, and cut the stream
                LOG.warn("export of {} failed after the first byte: {}", q.rollup().name(), e.getMessage());
                w.fail(e instanceof ReadFailure ? "counters are unavailable, try again: " + e.getMessage() : e.getMessage(),
                        e instanceof QueryException qe ? qe.name() : null);
                w.out.flush();
                Request.getBaseRequest(ctx.req()).getHttpChannel().abort(e);
            }
        } catch (EofException e) {
            LOG.debug("export client went away: {}", e.getMessage());
        }
    }

    /** Sends the status and headers, and the CSV header line, at once: the first byte does not wait for rows. */
    private ExportWriter begin(Context ctx, String format, ReportQuery q, Map<String, ReportResponse.Day> days, String plan)
            throws IOException {
        HttpServletResponse res = ctx.res();
        OutputStream out = new BufferedOutputStream(res.getOutputStream(), OUT_BUFFER);
        ExportWriter w = ExportWriter.of(format, out, q, mapper);
        res.setStatus(200);
        res.setContentType(w.contentType());
        res.setHeader("Adreport-Days", ExportWriter.daysHeader(days));
        res.setHeader("Adreport-Export", plan);
        if (format.equals("csv")) {
            res.setHeader("Content-Disposition", "attachment; filename=\"" + q.rollup().name() + ".csv\"");
        }
        w.begin();
        out.flush();
        res.flushBuffer();
        return w;
    }

    private ReportResponse response(ReportQuery q, ReportResult result, Map<String, ReportResponse.Day> days) {
        ZoneId zone = q.zone();
        List<ReportResponse.Row> rows = new ArrayList<>(result.rows().size());
        for (ReportRow r : result.rows()) {
            rows.add(new ReportResponse.Row(r.time() == null ? null : iso(r.time(), zone), r.dimensions(), r.metrics()));
        }
        return new ReportResponse(q.rollup().name(), iso(q.from(), zone), iso(q.to(), zone), q.granularity().label(),
                zone.getId(), rows, days);
    }

    /**
     * Status of every UTC day in [from, to): counters are kept, and reconciled, per UTC day. The
     * meta read starts now and is awaited by {@code get()}, so a caller overlaps it with its own.
     */
    private Supplier<Map<String, ReportResponse.Day>> days(Instant from, Instant to) {
        LocalDate first = UtcDay.dateOf(from);
        LocalDate last = UtcDay.dateOf(to.minusNanos(1));
        String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant());
        Supplier<Map<LocalDate, DayState>> states = meta.daysLater(first, last, async::scanAll);
        return () -> marks(states.get(), now);
    }

    private static Map<String, ReportResponse.Day> marks(Map<LocalDate, DayState> states, String now) {
        Map<String, ReportResponse.Day> out = new LinkedHashMap<>();
        for (DayState d : states.values()) {
            boolean reconciled = d.status() == DayStatus.RECONCILED;
            out.put(d.day().toString(), new ReportResponse.Day(reconciled ? "reconciled" : "live",
                    reconciled && d.reconciledAt() != null ? DateTimeFormatter.ISO_INSTANT.format(d.reconciledAt()) : now));
        }
        return out;
    }

    static String iso(Instant t, ZoneId zone) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.atZone(zone));
    }
}
