package io.adreport.http;

import static io.adreport.http.ErrorMapper.badParam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * A request body that must be one JSON object: the rule every endpoint that reads its body as a
 * tree applies before it checks the fields. A body that is not JSON, or is JSON but not an object
 * (empty, an array, a scalar), is one 400 naming {@code body}, whose rule shows the object's shape.
 */
public final class JsonBody {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonBody() {
    }

    /**
     * The object {@code body} holds, or a 400 {@code body: must be a JSON object SHAPE}.
     *
     * @param shape the fields the endpoint expects, as its error shows them (e.g. {@code {"device": "..."}})
     */
    public static JsonNode object(byte[] body, String shape) {
        JsonNode root;
        try {
            root = MAPPER.readTree(body);
        } catch (IOException e) {
            throw notAnObject(shape);
        }
        if (root == null || !root.isObject()) {
            throw notAnObject(shape);
        }
        return root;
    }

    private static RuntimeException notAnObject(String shape) {
        return badParam("body", "must be a JSON object " + shape);
    }
}
