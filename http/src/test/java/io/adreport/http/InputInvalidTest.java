package io.adreport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.adreport.schema.campaign.CampaignInvalid;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Both kinds of invalid input, a report parameter and a campaign field, over real HTTP: 400 with
 * {@code "name: rule"} as the error and the input's name as {@code parameter}.
 */
class InputInvalidTest {
    @Test
    void a_bad_parameter_or_field_is_a_400_naming_it() throws Exception {
        Javalin app = MappedApp.start(Map.of(
                "/query", ctx -> {
                    throw new QueryException("granularity", "the range has too many buckets");
                },
                "/campaign", ctx -> {
                    throw new CampaignInvalid("budget.timeZone", "must be an IANA time zone");
                }));
        try {
            assertBadInput(app.port(), "/query", "granularity", "granularity: the range has too many buckets");
            assertBadInput(app.port(), "/campaign", "budget.timeZone", "budget.timeZone: must be an IANA time zone");
        } finally {
            app.stop();
        }
    }

    private static void assertBadInput(int port, String path, String name, String error) throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, answer.statusCode(), answer.body());
        JsonNode body = new ObjectMapper().readTree(answer.body());
        assertEquals(error, body.path("error").asText(), answer.body());
        assertEquals(name, body.path("parameter").asText(), answer.body());
    }
}
