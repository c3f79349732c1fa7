package io.adreport.http;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The OpenAPI 3.0 schema of a Java record, read from the record itself, so that the document
 * cannot drift from what a handler writes or reads: component names are the property names,
 * primitives and non-null components are required, boxed numbers and {@link Nullable} components
 * may be null or absent, lists and sets are arrays, maps are objects of {@code additionalProperties},
 * enums are string enums, nested records are further named schemas. No other property is allowed.
 *
 * <p>Every record becomes one entry of {@code components/schemas}, named by its class and the classes
 * it is nested in ({@code AdController.Response} → {@code AdControllerResponse}) or by its {@link Name}; {@link #ref} answers
 * the {@code $ref} to it.
 */
public final class RecordSchemas {
    /** A component that may be null or left out. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.RECORD_COMPONENT, ElementType.PARAMETER, ElementType.FIELD, ElementType.METHOD})
    public @interface Nullable {
    }

    /** The component name of a record whose class name would not say it (e.g. a record that documents a hand-written form). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface Name {
        String value();
    }

    private final Map<String, Object> schemas = new LinkedHashMap<>();
    private final Map<String, Class<?>> owners = new LinkedHashMap<>();

    /** The named schemas gathered so far, for {@code components/schemas}. */
    public Map<String, Object> schemas() {
        return schemas;
    }

    /** Adds a schema written by hand (e.g. the error shape) under {@code name}. */
    public void put(String name, Map<String, Object> schema) {
        schemas.put(name, schema);
    }

    /** {@code {"$ref": "#/components/schemas/NAME"}} for {@code record}, adding its schema (and its records') once. */
    public Map<String, Object> ref(Class<?> record) {
        if (!record.isRecord()) {
            throw new IllegalArgumentException(record + " is not a record");
        }
        String name = name(record);
        Class<?> owner = owners.putIfAbsent(name, record);
        if (owner != null && owner != record) {
            throw new IllegalStateException("two records are named " + name + ": " + owner + ", " + record);
        }
        if (owner == null) {
            schemas.put(name, Map.of()); // placeholder: a record may refer to itself
            Map<String, Object> properties = new LinkedHashMap<>();
            List<String> required = new ArrayList<>();
            for (RecordComponent c : record.getRecordComponents()) {
                boolean nullable = c.isAnnotationPresent(Nullable.class) || isBoxed(c.getType());
                Map<String, Object> schema = schema(c.getGenericType());
                properties.put(c.getName(), nullable ? nullable(schema) : schema);
                if (!nullable) {
                    required.add(c.getName());
                }
            }
            Map<String, Object> object = new LinkedHashMap<>();
            object.put("type", "object");
            object.put("properties", properties);
            if (!required.isEmpty()) {
                object.put("required", required);
            }
            object.put("additionalProperties", false);
            schemas.put(name, object);
        }
        return Map.of("$ref", "#/components/schemas/" + name);
    }

    /** The component name of {@code record}: its simple name behind those of the classes it is nested in. */
    public static String name(Class<?> record) {
        Name named = record.getAnnotation(Name.class);
        if (named != null) {
            return named.value();
        }
        StringBuilder sb = new StringBuilder();
        for (Class<?> c = record; c != null; c = c.getEnclosingClass()) {
            sb.insert(0, c.getSimpleName());
        }
        return sb.toString();
    }

    private Map<String, Object> schema(Type type) {
        if (type instanceof WildcardType w) {
            return schema(w.getUpperBounds()[0]);
        }
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (Collection.class.isAssignableFrom(raw)) {
                Map<String, Object> array = new LinkedHashMap<>();
                array.put("type", "array");
                array.put("items", element(args[0]));
                if (Set.class.isAssignableFrom(raw)) {
                    array.put("uniqueItems", true);
                }
                return array;
            }
            if (Map.class.isAssignableFrom(raw)) {
                return Map.of("type", "object", "additionalProperties", element(args[1]));
            }
            return schema(raw);
        }
        Class<?> c = (Class<?>) type;
        if (c == String.class || c == char.class || c == Character.class) {
            return Map.of("type", "string");
        }
        if (c == boolean.class || c == Boolean.class) {
            return Map.of("type", "boolean");
        }
        if (c == int.class || c == Integer.class || c == short.class || c == Short.class || c == byte.class || c == Byte.class) {
            return Map.of("type", "integer", "format", "int32");
        }
        if (c == long.class || c == Long.class) {
            return Map.of("type", "integer", "format", "int64");
        }
        if (c == double.class || c == Double.class || c == float.class || c == Float.class) {
            return Map.of("type", "number", "format", "double");
        }
        if (Number.class.isAssignableFrom(c)) {
            return Map.of("type", "number");
        }
        if (c == LocalDate.class) {
            return Map.of("type", "string", "format", "date");
        }
        if (c == Instant.class) {
            return Map.of("type", "string", "format", "date-time");
        }
        if (c.isEnum()) {
            return Map.of("type", "string", "enum", Arrays.stream(c.getEnumConstants()).map(e -> ((Enum<?>) e).name()).toList());
        }
        if (c.isRecord()) {
            return ref(c);
        }
        if (c.getName().equals("com.fasterxml.jackson.databind.JsonNode")) {
            return Map.of(); // any JSON value
        }
        throw new IllegalArgumentException("no JSON schema for " + c.getName() + " (a record component's type)");
    }

    /** An element of an array or a value of a map: boxed numbers may be null (e.g. a derived metric over zero). */
    private Map<String, Object> element(Type type) {
        Map<String, Object> schema = schema(type);
        return type instanceof Class<?> c && isBoxed(c) ? nullable(schema) : schema;
    }

    private static boolean isBoxed(Class<?> c) {
        return c == Long.class || c == Integer.class || c == Double.class || c == Float.class || c == Short.class
                || c == Byte.class || c == Boolean.class || c == Number.class;
    }

    private static Map<String, Object> nullable(Map<String, Object> schema) {
        if (schema.isEmpty()) {
            return schema; // any value, null included
        }
        if (schema.containsKey("$ref")) {
            // 3.0 ignores siblings of $ref, and nullable needs a type beside it: a record that may be
            // missing is left out of the answer (not null), so it is simply not required.
            return schema;
        }
        Map<String, Object> out = new LinkedHashMap<>(schema);
        out.put("nullable", true);
        if (schema.get("enum") instanceof List<?> values) { // an enum admits null only when it lists it
            List<Object> withNull = new ArrayList<>(values);
            withNull.add(null);
            out.put("enum", withNull);
        }
        return out;
    }
}
