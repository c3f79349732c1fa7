package io.adreport.aggregator.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.event.EventRejected;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a request body straight into events: a JSON array, or NDJSON (one JSON value per
 * non-blank line). One token stream over the whole body, each value handed to
 * {@link EventParser#parse(JsonParser)} where it starts: no line splitting, no parser per line, no
 * tree per event.
 *
 * <p>Malformed JSON anywhere rejects the whole body (400) with a message naming the line (NDJSON)
 * or the array position; so does an NDJSON value that does not start and end on its own line
 * (two values on one line, or one spread over several). More than {@link #MAX_EVENTS} values is
 * 413. A well-formed value that is not a valid event is the parser's business: it is listed in
 * {@link Parsed#rejected()} at its position, and the others are still returned.
 */
final class EventBody {
    static final int MAX_EVENTS = 10_000;
    static final int MAX_BYTES = 10 * 1024 * 1024;
    private static final JsonFactory JSON = new JsonFactory();

    /** One invalid event of a body: its 0-based position and why. */
    record Rejected(int index, EventRejected error) {
    }

    /** The valid events of a body, in order, and the invalid ones by position. */
    record Parsed(List<Event> events, List<Rejected> rejected) {
        /** Values in the body. */
        int size() {
            return events.size() + rejected.size();
        }
    }

    private EventBody() {
    }

    static Parsed parse(byte[] body, EventParser parser) {
        if (body.length > MAX_BYTES) {
            throw new IngestError(413, "body: must be at most " + MAX_BYTES + " bytes (10 MiB), got " + body.length);
        }
        int first = 0;
        while (first < body.length && Character.isWhitespace(body[first])) {
            first++;
        }
        Parsed out = new Parsed(new ArrayList<>(), new ArrayList<>());
        if (first == body.length) {
            return out;
        }
        try (JsonParser p = JSON.createParser(body)) {
            if (body[first] == '[') {
                array(p, parser, out);
            } else {
                ndjson(p, parser, out);
            }
        } catch (IOException e) { // closing a parser over a byte array
            throw new IngestError(400, "body: unreadable: " + e.getMessage());
        }
        return out;
    }

    private static void array(JsonParser p, EventParser parser, Parsed out) {
        try {
            p.nextToken(); // START_ARRAY
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    throw new IngestError(400, "body: malformed JSON array: unexpected end of input");
                }
                if (out.size() == MAX_EVENTS) {
                    throw new IngestError(413, "body: at most " + MAX_EVENTS + " events per request");
                }
                one(p, parser, out);
            }
            if (p.nextToken() != null) {
                throw new IngestError(400, "body: unexpected content after the JSON array");
            }
        } catch (JsonProcessingException e) {
            throw new IngestError(400, "index " + out.size() + ": malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IngestError(400, "body: unreadable: " + e.getMessage());
        }
    }

    private static void ndjson(JsonParser p, EventParser parser, Parsed out) {
        int line = 1;
        int lastLine = 0; // line on which the previous value ended
        boolean inValue = false;
        try {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                line = p.currentTokenLocation().getLineNr();
                inValue = true;
                if (line == lastLine) {
                    throw new IngestError(400, "line " + line + ": malformed JSON: more than one value on the line");
                }
                if (out.size() == MAX_EVENTS) {
                    throw new IngestError(413, "body: at most " + MAX_EVENTS + " events per request");
                }
                one(p, parser, out);
                lastLine = p.currentTokenLocation().getLineNr();
                if (lastLine != line) {
                    throw new IngestError(400, "line " + line + ": malformed JSON: a value must end on the line where it starts");
                }
                inValue = false;
            }
        } catch (JsonProcessingException e) {
            // inside a value: the line it starts on; between values: where the stray token is
            int at = !inValue && e.getLocation() != null && e.getLocation().getLineNr() > 0 ? e.getLocation().getLineNr() : line;
            throw new IngestError(400, "line " + at + ": malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IngestError(400, "line " + line + ": unreadable: " + e.getMessage());
        }
    }

    /** Reads the value at the current token into an event or a rejection. */
    private static void one(JsonParser p, EventParser parser, Parsed out) throws IOException {
        int index = out.size();
        try {
            out.events().add(parser.parse(p));
        } catch (EventRejected e) {
            out.rejected().add(new Rejected(index, e));
        }
    }
}
