package io.adreport.report.api;

import io.adreport.report.auth.AccessPolicy;
import io.adreport.report.auth.Role;
import io.adreport.report.query.ReportEngine;
import io.adreport.report.query.ReportGranularity;
import io.adreport.report.query.ReportQuery;
import io.adreport.report.query.ReportResult;
import io.adreport.report.query.ReportRow;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.Rollup;
import io.adreport.schema.meta.MetaStore;
import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code GET /v1/reports/{rollup}}: parse, authorize, run, and answer in JSON or CSV. */
final class ReportController {
    private final Cube cube;
    private final ReportParams params;
    private final AccessPolicy policy;
    private final ReportEngine engine;
    private final MetaStore meta;
    private final Clock clock;

    ReportController(Cube cube, ReportParams params, AccessPolicy policy, ReportEngine engine, MetaStore meta, Clock clock) {
        this.cube = cube;
        this.params = params;
        this.policy = policy;
        this.engine = engine;
        this.meta = meta;
        this.clock = clock;
    }

    void report(Context ctx) {
        Role role = BearerAuth.role(ctx);
        Rollup rollup = cube.rollup(ctx.pathParam("rollup"))
                .orElseThrow(() -> new NotFoundResponse("unknown rollup; see GET /v1/rollups"));
        if (!policy.canRead(role, rollup)) {
            throw new io.adreport.report.auth.AccessDenied("rollup " + rollup.name() + " is not readable by this key");
        }
        String format = params.format(ctx);
        ReportQuery asked = params.parse(ctx, rollup);
        ReportQuery q = asked.withFilters(policy.restrict(role, rollup, asked.filters()));
        ReportResult result = engine.run(q);
        ReportResponse body = response(q, result);
        if (format.equals("csv")) {
            ctx.contentType("text/csv; charset=utf-8")
                    .header("Content-Disposition", "attachment; filename=\"" + rollup.name() + ".csv\"")
                    .result(CsvFormat.write(body, q.groupBy(), q.metrics(), q.granularity() != ReportGranularity.ALL));
        } else {
            ctx.json(body);
        }
    }

    private ReportResponse response(ReportQuery q, ReportResult result) {
        ZoneId zone = q.zone();
        List<ReportResponse.Row> rows = new ArrayList<>(result.rows().size());
        for (ReportRow r : result.rows()) {
            rows.add(new ReportResponse.Row(r.time() == null ? null : iso(r.time(), zone), r.dimensions(), r.metrics()));
        }
        return new ReportResponse(q.rollup().name(), iso(q.from(), zone), iso(q.to(), zone), q.granularity().label(),
                zone.getId(), rows, days(q.from(), q.to()));
    }

    /** Status of every UTC day in [from, to): counters are kept, and reconciled, per UTC day. */
    private Map<String, ReportResponse.Day> days(Instant from, Instant to) {
        LocalDate first = LocalDate.ofInstant(from, ZoneOffset.UTC);
        LocalDate last = LocalDate.ofInstant(to.minusNanos(1), ZoneOffset.UTC);
        String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant());
        Map<String, ReportResponse.Day> out = new LinkedHashMap<>();
        for (MetaStore.DayState d : meta.days(first, last).values()) {
            boolean reconciled = d.status() == MetaStore.DayStatus.RECONCILED;
            out.put(d.day().toString(), new ReportResponse.Day(reconciled ? "reconciled" : "live",
                    reconciled && d.reconciledAt() != null ? DateTimeFormatter.ISO_INSTANT.format(d.reconciledAt()) : now));
        }
        return out;
    }

    static String iso(Instant t, ZoneId zone) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.atZone(zone));
    }
}
