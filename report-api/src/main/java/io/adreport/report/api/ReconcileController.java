package io.adreport.report.api;

import io.adreport.schema.time.UtcDay;
import static io.adreport.http.ErrorMapper.badParam;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import io.adreport.http.auth.AccessPolicy;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatus;
import io.adreport.schema.meta.DayStatusStore;
import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import io.adreport.http.BearerAuth;
import io.adreport.http.RecordSchemas;

/**
 * Drift reports of the nightly reconcile job, for analysts: {@code GET /v1/reconcile/{day}} and
 * {@code GET /v1/reconcile?from&to} (the days that were closed or reconciled in a range). The
 * drift JSON is the job's own, passed through unchanged. The list also carries the aggregators'
 * count of refused pixel beacons (the dashboard's data-quality tile beside the drift table).
 */
final class ReconcileController {
    static final int MAX_DAYS = 92;

    /**
     * @param day          UTC day
     * @param status       closing (a recount is running or failed) or reconciled
     * @param closingAt    when the day was closed for live increments
     * @param reconciledAt when the last recount finished
     * @param drift        the drift report of the last recount
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RecordSchemas.Name("DayReport")
    public record DayReport(String day, String status, @RecordSchemas.Nullable String closingAt,
                            @RecordSchemas.Nullable String reconciledAt, @RecordSchemas.Nullable JsonNode drift) {
    }

    /**
     * @param days           closed or reconciled days of the range, oldest first
     * @param beaconsRefused pixel beacons the aggregators refused (forged, altered, expired, replayed,
     *                       for a paused campaign: docs/SECURITY.md), not of the range: every
     *                       aggregator's total as its heartbeat row records it (about every second),
     *                       summed; counted across restarts
     */
    @RecordSchemas.Name("DayReports")
    public record DayReports(List<DayReport> days, long beaconsRefused) {
    }

    private final DayStatusStore meta;
    private final java.util.function.LongSupplier beaconsRefused;
    private final AccessPolicy policy;
    private final ObjectMapper mapper;
    private final Clock clock;

    /** @param beaconsRefused the aggregators' refused-beacon total ({@code HeartbeatStore#beaconsRefused()}) */
    ReconcileController(DayStatusStore meta, java.util.function.LongSupplier beaconsRefused, AccessPolicy policy, ObjectMapper mapper,
                        Clock clock) {
        this.meta = meta;
        this.beaconsRefused = beaconsRefused;
        this.policy = policy;
        this.mapper = mapper;
        this.clock = clock;
    }

    void day(Context ctx) {
        policy.requireAnalyst(BearerAuth.role(ctx), "the drift report");
        LocalDate day = date(ctx.pathParam("day"), "day");
        DayState s = meta.day(day);
        if (s.status() == DayStatus.LIVE || (s.driftJson() == null && s.reconciledAt() == null)) {
            throw new NotFoundResponse(day + " was never reconciled");
        }
        ctx.json(report(s));
    }

    void list(Context ctx) {
        policy.requireAnalyst(BearerAuth.role(ctx), "the drift report");
        LocalDate today = UtcDay.dateToday(clock);
        LocalDate to = ctx.queryParam("to") == null ? today : date(ctx.queryParam("to"), "to");
        LocalDate from = ctx.queryParam("from") == null ? to.minusDays(6) : date(ctx.queryParam("from"), "from");
        if (from.isAfter(to)) {
            throw badParam("from", "must not be after to");
        }
        if (from.plusDays(MAX_DAYS).isBefore(to)) {
            throw badParam("from", "the range must be at most " + MAX_DAYS + " days");
        }
        List<DayReport> days = meta.days(from, to).values().stream().filter(DayState::closed).map(this::report).toList();
        ctx.json(new DayReports(days, beaconsRefused.getAsLong()));
    }

    private DayReport report(DayState s) {
        return new DayReport(s.day().toString(), s.status().name().toLowerCase(java.util.Locale.ROOT),
                text(s.closingAt()), text(s.reconciledAt()), drift(s.driftJson()));
    }

    private JsonNode drift(String json) {
        if (json == null) {
            return null;
        }
        try {
            return mapper.readTree(json);
        } catch (JsonProcessingException e) {
            return TextNode.valueOf(json); // not JSON: still the job's words, passed through as text
        }
    }

    private static String text(Instant t) {
        return t == null ? null : t.toString();
    }

    private static LocalDate date(String v, String name) {
        try {
            return LocalDate.parse(v);
        } catch (DateTimeException e) {
            throw badParam(name, "must be a date YYYY-MM-DD");
        }
    }
}
