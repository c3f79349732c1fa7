package io.adreport.http;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One route: what Javalin serves and what the OpenAPI document says about it, from the same
 * record, so the two cannot drift apart.
 *
 * @param method    HTTP method
 * @param path      Javalin path; {@code {name}} segments are path parameters
 * @param summary   one line for the OpenAPI document
 * @param tag       OpenAPI tag
 * @param secured   true: needs {@code Authorization: Bearer KEY}
 * @param params    query and path parameters
 * @param responses status → description
 * @param handler   the controller method
 * @param produces  media types of a 200 answer (empty: application/json)
 * @param request   the record a JSON request body is read as (its schema is the body's), or null for no body
 * @param answer    the record a 2xx JSON answer is written from, or null; {@code Map.class}: any JSON object
 */
public record ApiRoute(HandlerType method, String path, String summary, String tag, boolean secured,
                       List<Param> params, Map<Integer, String> responses, Handler handler, List<String> produces,
                       Class<?> request, Class<?> answer) {

    public ApiRoute(HandlerType method, String path, String summary, String tag, boolean secured,
                    List<Param> params, Map<Integer, String> responses, Handler handler) {
        this(method, path, summary, tag, secured, params, responses, handler, List.of());
    }

    public ApiRoute(HandlerType method, String path, String summary, String tag, boolean secured,
                    List<Param> params, Map<Integer, String> responses, Handler handler, List<String> produces) {
        this(method, path, summary, tag, secured, params, responses, handler, produces, null, null);
    }

    /** This route, its JSON request body read as {@code record}. */
    public ApiRoute withRequest(Class<?> record) {
        return new ApiRoute(method, path, summary, tag, secured, params, responses, handler, produces, record, answer);
    }

    /** This route, its 2xx JSON answers written from {@code record}. */
    public ApiRoute withAnswer(Class<?> record) {
        return new ApiRoute(method, path, summary, tag, secured, params, responses, handler, produces, request, record);
    }

    /** One parameter. {@code allowed} empty means free text. */
    public record Param(String name, String in, String type, boolean required, String description,
                        List<String> allowed, String defaultValue) {
        public Param {
            Objects.requireNonNull(name, "name");
            allowed = List.copyOf(allowed);
        }

        public static Param query(String name, String type, String description) {
            return new Param(name, "query", type, false, description, List.of(), null);
        }

        public static Param path(String name, String description) {
            return new Param(name, "path", "string", true, description, List.of(), null);
        }

        public Param mandatory() {
            return new Param(name, in, type, true, description, allowed, defaultValue);
        }

        public Param oneOf(List<String> values) {
            return new Param(name, in, type, required, description, values, defaultValue);
        }

        public Param withDefault(String value) {
            return new Param(name, in, type, required, description, allowed, value);
        }
    }

    public ApiRoute {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(handler, "handler");
        params = List.copyOf(params);
        responses = Map.copyOf(responses);
        produces = List.copyOf(produces);
    }
}
