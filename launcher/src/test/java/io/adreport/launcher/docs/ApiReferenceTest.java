package io.adreport.launcher.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/API.md is generated from docs/openapi.json (which {@code OpenApiAnswersTest} keeps equal to
 * the served document). When the document changes, regenerate the page:
 * {@code mvn -pl launcher -am test -Dtest=ApiReferenceTest -Dapi.update=true}.
 */
class ApiReferenceTest {
    private static final Path DOC = Path.of("../docs/openapi.json");
    private static final Path PAGE = Path.of("../docs/API.md");

    @Test
    void the_api_reference_page_is_generated_from_the_checked_in_document() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(Files.readString(DOC));
        String generated = ApiReference.markdown(doc);
        if (Boolean.getBoolean("api.update")) {
            Files.writeString(PAGE, generated);
            return;
        }
        assertTrue(Files.exists(PAGE), "docs/API.md is missing: run with -Dapi.update=true");
        assertEquals(generated, Files.readString(PAGE),
                "docs/API.md is stale: run mvn -pl launcher -am test -Dtest=ApiReferenceTest -Dapi.update=true");
    }

    @Test
    void every_operation_and_every_schema_of_the_document_has_a_heading() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(Files.readString(DOC));
        String page = ApiReference.markdown(doc);
        int operations = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            for (Iterator<String> methods = path.getValue().fieldNames(); methods.hasNext(); ) {
                String heading = "### `" + methods.next().toUpperCase() + " " + path.getKey() + "`\n";
                assertTrue(page.contains(heading), "no heading " + heading.strip());
                operations++;
            }
        }
        assertTrue(operations >= 15, "the document lists " + operations + " operations");
        for (Iterator<String> names = doc.path("components").path("schemas").fieldNames(); names.hasNext(); ) {
            String name = names.next();
            assertTrue(page.contains("### " + name + "\n"), "no schema heading " + name);
        }
    }

    @Test
    void a_schema_reference_links_to_the_schema_heading() throws Exception {
        JsonNode ref = new ObjectMapper().readTree("{\"type\":\"array\",\"items\":{\"$ref\":\"#/components/schemas/ReportRow\"}}");
        assertEquals("array of [ReportRow](#reportrow)", ApiReference.type(ref));
        JsonNode map = new ObjectMapper().readTree("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\",\"format\":\"double\",\"nullable\":true}}");
        assertEquals("map of number (double), or null", ApiReference.type(map));
    }
}
