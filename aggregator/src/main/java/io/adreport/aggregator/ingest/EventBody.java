package io.adreport.aggregator.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a request body into event objects: a JSON array, or NDJSON (one JSON value per
 * non-blank line). Malformed JSON anywhere rejects the whole body (400) with a message naming
 * the line (NDJSON) or the array position; more than {@link #MAX_EVENTS} events is 413.
 * Whether each value is a valid event is the parser's business, not this class's.
 */
final class EventBody {
    static final int MAX_EVENTS = 10_000;
    static final int MAX_BYTES = 10 * 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private EventBody() {
    }

    static List<JsonNode> parse(byte[] body) {
        if (body.length > MAX_BYTES) {
            throw new IngestError(413, "body: must be at most " + MAX_BYTES + " bytes (10 MiB), got " + body.length);
        }
        int first = 0;
        while (first < body.length && Character.isWhitespace(body[first])) {
            first++;
        }
        if (first == body.length) {
            return List.of();
        }
        return body[first] == '[' ? array(body) : ndjson(body);
    }

    private static List<JsonNode> array(byte[] body) {
        List<JsonNode> out = new ArrayList<>();
        try (JsonParser p = JSON.getFactory().createParser(body)) {
            p.nextToken(); // START_ARRAY
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    throw new IngestError(400, "body: malformed JSON array: unexpected end of input");
                }
                if (out.size() == MAX_EVENTS) {
                    throw new IngestError(413, "body: at most " + MAX_EVENTS + " events per request");
                }
                try {
                    out.add(JSON.readTree(p));
                } catch (JsonProcessingException e) {
                    throw new IngestError(400, "index " + out.size() + ": malformed JSON: " + e.getOriginalMessage());
                }
            }
            if (p.nextToken() != null) {
                throw new IngestError(400, "body: unexpected content after the JSON array");
            }
        } catch (JsonProcessingException e) {
            throw new IngestError(400, "index " + out.size() + ": malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IngestError(400, "body: unreadable: " + e.getMessage());
        }
        return out;
    }

    private static List<JsonNode> ndjson(byte[] body) {
        List<JsonNode> out = new ArrayList<>();
        int line = 0;
        int start = 0;
        while (start <= body.length) {
            int end = start;
            while (end < body.length && body[end] != '\n') {
                end++;
            }
            line++;
            if (!blank(body, start, end)) {
                if (out.size() == MAX_EVENTS) {
                    throw new IngestError(413, "body: at most " + MAX_EVENTS + " events per request");
                }
                try (JsonParser p = JSON.getFactory().createParser(body, start, end - start)) {
                    JsonNode node = JSON.readTree(p);
                    if (p.nextToken() != null) {
                        throw new IngestError(400, "line " + line + ": malformed JSON: more than one value on the line");
                    }
                    out.add(node);
                } catch (JsonProcessingException e) {
                    throw new IngestError(400, "line " + line + ": malformed JSON: " + e.getOriginalMessage());
                } catch (IOException e) {
                    throw new IngestError(400, "line " + line + ": unreadable: " + e.getMessage());
                }
            }
            start = end + 1;
        }
        return out;
    }

    private static boolean blank(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Character.isWhitespace(b[i])) {
                return false;
            }
        }
        return true;
    }
}
