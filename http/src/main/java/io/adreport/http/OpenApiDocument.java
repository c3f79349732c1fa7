package io.adreport.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Builds the OpenAPI 3.0 document from the {@link ApiRoute}s that Javalin serves. */
public final class OpenApiDocument {
    private OpenApiDocument() {
    }

    public static Map<String, Object> of(String title, String version, List<ApiRoute> routes) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("openapi", "3.0.3");
        doc.put("info", Map.of("title", title, "version", version,
                "description", "Reports over live and reconciled ad counters. Every /v1 route needs "
                        + "Authorization: Bearer KEY; tenant keys see only their own rows."));
        doc.put("servers", List.of(Map.of("url", "/", "description", "the server that serves this document")));
        RecordSchemas schemas = new RecordSchemas();
        schemas.put("Error", Map.of("type", "object", "required", List.of("error"), "properties", Map.of(
                "error", Map.of("type", "string", "description", "the rule that was broken"),
                "parameter", Map.of("type", "string", "description", "the parameter that broke it"),
                "requestId", Map.of("type", "string", "description",
                        "500 only: the request's id, also in the X-Request-Id header and the server's log line"))));
        Map<String, Object> paths = new TreeMap<>();
        for (ApiRoute r : routes) {
            @SuppressWarnings("unchecked")
            Map<String, Object> item = (Map<String, Object>) paths.computeIfAbsent(r.path(), p -> new LinkedHashMap<>());
            item.put(r.method().name().toLowerCase(Locale.ROOT), operation(r, schemas));
        }
        doc.put("paths", paths);
        doc.put("components", Map.of(
                "securitySchemes", Map.of("bearer", Map.of("type", "http", "scheme", "bearer",
                        "description", "API key created with: bin/adreport keys add --role ROLE")),
                "schemas", new TreeMap<>(schemas.schemas())));
        return doc;
    }

    /** The schema of a request body or answer declared as {@code type}: a record's {@code $ref}, or any object. */
    private static Map<String, Object> schema(Class<?> type, RecordSchemas schemas) {
        return type == Map.class ? Map.of("type", "object") : schemas.ref(type);
    }

    private static Map<String, Object> operation(ApiRoute r, RecordSchemas schemas) {
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("summary", r.summary());
        op.put("tags", List.of(r.tag()));
        op.put("operationId", r.method().name().toLowerCase(Locale.ROOT) + r.path().replaceAll("[^A-Za-z0-9]+", "_"));
        // Every operation says whether it needs a key: the bearer scheme, or none at all.
        op.put("security", r.secured() ? List.of(Map.of("bearer", List.of())) : List.of());
        List<Map<String, Object>> params = new ArrayList<>();
        for (ApiRoute.Param p : r.params()) {
            Map<String, Object> schema = new LinkedHashMap<>();
            schema.put("type", p.type());
            if (!p.allowed().isEmpty()) {
                schema.put("enum", p.allowed());
            }
            if (p.defaultValue() != null) {
                schema.put("default", p.defaultValue());
            }
            Map<String, Object> param = new LinkedHashMap<>();
            param.put("name", p.name());
            param.put("in", p.in());
            param.put("required", p.required());
            param.put("description", p.description());
            param.put("schema", schema);
            params.add(param);
        }
        if (!params.isEmpty()) {
            op.put("parameters", params);
        }
        if (r.request() != null) {
            op.put("requestBody", Map.of("required", true,
                    "content", Map.of("application/json", Map.of("schema", schema(r.request(), schemas)))));
        }
        Map<String, Object> responses = new TreeMap<>();
        r.responses().forEach((status, text) -> {
            Map<String, Object> resp = new LinkedHashMap<>();
            resp.put("description", text);
            boolean success = status >= 200 && status < 300;
            if (success && (r.answer() != null || !r.produces().isEmpty())) {
                Map<String, Object> content = new LinkedHashMap<>();
                List<String> types = r.produces().isEmpty() ? List.of("application/json") : r.produces();
                for (String type : types) {
                    content.put(type, type.equals("application/json") && r.answer() != null
                            ? Map.of("schema", schema(r.answer(), schemas))
                            : Map.of("schema", Map.of("type", "string")));
                }
                resp.put("content", content);
            }
            if (status >= 400) {
                resp.put("content", Map.of("application/json", Map.of("schema", Map.of("$ref", "#/components/schemas/Error"))));
            }
            responses.put(Integer.toString(status), resp);
        });
        op.put("responses", responses);
        return op;
    }
}
