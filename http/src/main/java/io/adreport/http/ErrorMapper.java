package io.adreport.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.adreport.http.auth.AccessDenied;
import io.adreport.schema.input.InputInvalid;
import io.adreport.schema.metrics.RequestIds;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.javalin.validation.ValidationError;
import io.javalin.validation.ValidationException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one exception mapper: every failure becomes a JSON {@code {"error", "parameter"}} with the
 * right status. Client errors carry the rule that was broken; server errors are logged here and
 * answered without internals. Every answer carries the request's id ({@link RequestIds}, set by
 * {@link #tag} before any handler); an unexpected error's body and log line both name it.
 */
public final class ErrorMapper {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);
    private static final String REQUEST_ID = "adreport.requestId";

    /** The error body. {@code parameter} is present for 400s about a parameter, {@code requestId} for 500s. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ErrorBody(String error, String parameter, String requestId) {
        public ErrorBody(String error, String parameter) {
            this(error, parameter, null);
        }
    }

    /** Before every handler: the request's id, kept for the error mapper and echoed in the answer header. */
    public static void tag(Context ctx) {
        String id = RequestIds.of(ctx.header(RequestIds.HEADER));
        ctx.attribute(REQUEST_ID, id);
        ctx.header(RequestIds.HEADER, id);
    }

    /** A 400 about one parameter. */
    public static HttpResponseException badParam(String parameter, String rule) {
        return new HttpResponseException(HttpStatus.BAD_REQUEST.getCode(), parameter + ": " + rule, Map.of("parameter", parameter));
    }

    public void handle(Exception e, Context ctx) {
        if (e instanceof ValidationException ve) {
            Map.Entry<String, List<ValidationError<Object>>> first = ve.getErrors().entrySet().iterator().next();
            String message = first.getValue().isEmpty() ? "is invalid" : first.getValue().get(0).getMessage();
            reply(ctx, HttpStatus.BAD_REQUEST, first.getKey() + ": " + message, first.getKey());
        } else if (e instanceof InputInvalid ii) {
            reply(ctx, HttpStatus.BAD_REQUEST, ii.getMessage(), ii.name());
        } else if (e instanceof AccessDenied ad) {
            reply(ctx, HttpStatus.FORBIDDEN, ad.getMessage(), null);
        } else if (e instanceof HttpResponseException hre) {
            HttpStatus status = HttpStatus.forStatus(hre.getStatus());
            if (status == HttpStatus.UNAUTHORIZED) {
                ctx.header("WWW-Authenticate", "Bearer");
            }
            reply(ctx, status, hre.getMessage(), hre.getDetails().get("parameter"));
        } else if (e instanceof java.io.IOException io) {
            LOG.warn("HBase call failed on {} {}: {}", ctx.method(), ctx.path(), io.toString());
            reply(ctx, HttpStatus.SERVICE_UNAVAILABLE, "HBase is unavailable, try again", null);
        } else if (e instanceof ReadFailure rf) {
            LOG.warn("report read failed: {}", rf.getMessage(), rf.getCause());
            reply(ctx, HttpStatus.SERVICE_UNAVAILABLE, "counters are unavailable, try again: " + rf.getMessage(), null);
        } else if (e instanceof UncheckedIOException io) {
            // The meta table (API keys, day states) could not be read: HBase is down or too slow.
            LOG.warn("meta table read failed on {} {}: {}", ctx.method(), ctx.path(), io.getCause().toString());
            reply(ctx, HttpStatus.SERVICE_UNAVAILABLE, "HBase unavailable, try again: " + firstLine(io.getCause()), null);
        } else {
            unexpected(e, ctx, "the report API's log");
        }
    }

    /**
     * An exception no handler expected ({@link #tag} has run): logged at error with the request's
     * id and answered 500 with the id in the body, never as a bare "Server Error"; {@code log}
     * names where the operator finds the line (e.g. "the ingest log").
     */
    public static void unexpected(Exception e, Context ctx, String log) {
        String id = ctx.attribute(REQUEST_ID);
        LOG.error("request {}: unexpected error on {} {}", id, ctx.method(), ctx.path(), e);
        ctx.status(HttpStatus.INTERNAL_SERVER_ERROR).json(new ErrorBody("internal error: " + e.getClass().getSimpleName()
                + " (see " + log + " for request " + id + ")", null, id));
    }

    private static String firstLine(Throwable t) {
        String m = String.valueOf(t.getMessage());
        int nl = m.indexOf('\n');
        m = nl < 0 ? m : m.substring(0, nl);
        return t.getClass().getSimpleName() + (m.length() > 200 ? ": " + m.substring(0, 200) + "..." : ": " + m);
    }

    private static void reply(Context ctx, HttpStatus status, String error, String parameter) {
        ctx.status(status).json(new ErrorBody(error, parameter));
    }
}
