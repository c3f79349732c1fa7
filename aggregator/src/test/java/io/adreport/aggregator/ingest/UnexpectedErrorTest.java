package io.adreport.aggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.WriterAppender;
import org.junit.jupiter.api.Test;

/**
 * The ingest server's handling of an exception no handler expects (a programming error), over
 * real HTTP: a 500 whose JSON body names the request's id, the same id in the X-Request-Id answer
 * header and in the server's log line; the server keeps answering.
 */
class UnexpectedErrorTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void an_unexpected_exception_is_a_500_whose_body_and_log_line_name_the_same_request_id() throws Exception {
        Javalin app = Javalin.create(cfg -> cfg.showJavalinBanner = false);
        IngestServer.tagRequests(app);
        app.get("/boom", ctx -> {
            throw new IllegalStateException("a bug");
        });
        app.get("/fine", ctx -> ctx.result("ok"));
        StringWriter log = new StringWriter();
        WriterAppender appender = new WriterAppender(new PatternLayout("%p %c{1}: %m%n"), log);
        Logger.getRootLogger().addAppender(appender);
        app.start(0);
        try {
            String base = "http://127.0.0.1:" + app.port();
            HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/boom"))
                    .header("X-Request-Id", "client-chosen-7").build(), HttpResponse.BodyHandlers.ofString());

            assertEquals(500, answer.statusCode(), answer.body());
            JsonNode body = new ObjectMapper().readTree(answer.body());
            assertEquals("client-chosen-7", body.path("requestId").asText(), answer.body());
            assertTrue(body.path("error").asText().contains("IllegalStateException"), answer.body());
            assertEquals("client-chosen-7", answer.headers().firstValue("X-Request-Id").orElse(null));
            assertTrue(log.toString().lines().anyMatch(l -> l.startsWith("ERROR") && l.contains("request client-chosen-7")), log.toString());

            // An id that is not a plain token is replaced; a request without one gets its own.
            HttpResponse<String> odd = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/boom"))
                    .header("X-Request-Id", "<script>").build(), HttpResponse.BodyHandlers.ofString());
            String made = new ObjectMapper().readTree(odd.body()).path("requestId").asText();
            assertTrue(made.matches("[0-9a-f]{16}"), odd.body());
            assertEquals(made, odd.headers().firstValue("X-Request-Id").orElse(null));
            HttpResponse<String> fine = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/fine")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, fine.statusCode());
            assertTrue(fine.headers().firstValue("X-Request-Id").orElse("").matches("[0-9a-f]{16}"));
        } finally {
            app.stop();
            Logger.getRootLogger().removeAppender(appender);
        }
    }
}
