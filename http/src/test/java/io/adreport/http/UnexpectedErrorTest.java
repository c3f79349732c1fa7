package io.adreport.http;

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
import java.util.Map;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.WriterAppender;
import org.junit.jupiter.api.Test;

/**
 * The report API's error mapper meeting an exception no handler expects, over real HTTP: 500, a
 * JSON body naming the request's id, the same id in X-Request-Id and in the log line.
 */
class UnexpectedErrorTest {
    @Test
    void an_unexpected_exception_is_a_500_whose_body_and_log_line_name_the_same_request_id() throws Exception {
        StringWriter log = new StringWriter();
        WriterAppender appender = new WriterAppender(new PatternLayout("%p %c{1}: %m%n"), log);
        Logger.getRootLogger().addAppender(appender);
        Javalin app = MappedApp.start(Map.of("/boom", ctx -> {
            throw new IllegalStateException("a bug");
        }));
        try {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/boom")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertEquals(500, answer.statusCode(), answer.body());
            JsonNode body = new ObjectMapper().readTree(answer.body());
            String id = answer.headers().firstValue("X-Request-Id").orElse("");
            assertTrue(id.matches("[0-9a-f]{16}"), id);
            assertEquals(id, body.path("requestId").asText(), answer.body());
            assertTrue(body.path("error").asText().contains("IllegalStateException"), answer.body());
            assertTrue(log.toString().lines().anyMatch(l -> l.startsWith("ERROR") && l.contains("request " + id)), log.toString());
        } finally {
            app.stop();
            Logger.getRootLogger().removeAppender(appender);
        }
    }
}
