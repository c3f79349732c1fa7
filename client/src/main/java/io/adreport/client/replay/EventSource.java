package io.adreport.client.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * Reads a file of events line by line and turns each line into zero or more event objects.
 *
 * <ul>
 *   <li>{@code ndjson}: one event object per line, passed through (a {@code .gz} file is
 *       decompressed).</li>
 *   <li>{@code avazu}: the Avazu CTR CSV (one row per ad impression, {@code click} 0/1,
 *       {@code hour} YYMMDDHH): an impression per row ({@code avazu-ID}), at a time spread
 *       deterministically over its hour (the data has hours only), with advertiser = C17,
 *       campaign = C14, creative = C15xC16 (banner size), publisher = site_id (app_id where the
 *       site is Avazu's app placeholder), zone = banner_pos, deviceType = device_type,
 *       device = device_id (hashed at ingest); and a click ({@code avazu-ID-click}) a few seconds
 *       later for rows with click = 1.</li>
 *   <li>{@code talkingdata}: the TalkingData AdTracking CSV (one row per ad click): the data
 *       has clicks only, so each row becomes an impression ({@code td-LINE}) and its click at
 *       click_time, attributed to advertiser = app, publisher = channel, deviceType = device,
 *       device = ip:device:os; a row with is_attributed = 1 adds a conversion at
 *       attributed_time.</li>
 *   <li>{@code csv}: any CSV with a header, mapped by {@code --map field=column} and
 *       {@code --constant field=value}; the time column may be epoch millis, ISO-8601 with offset, or
 *       "yyyy-MM-dd HH:mm[:ss]" in UTC.</li>
 * </ul>
 * Every produced event carries its time as epoch milliseconds in {@code ts}, so a replay can
 * shift it.
 */
final class EventSource {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter LOOSE = DateTimeFormatter.ofPattern("yyyy-M-d H:mm[:ss]", Locale.ROOT);
    private static final String AVAZU_APP_SITE = "85f751fd";

    enum Format { NDJSON, AVAZU, TALKINGDATA, CSV }

    private final Path file;
    private final Format format;
    private final Map<String, String> map;
    private final Map<String, String> constants;

    EventSource(Path file, Format format, Map<String, String> map, Map<String, String> constants) {
        this.file = file;
        this.format = format;
        this.map = map;
        this.constants = constants;
    }

    /** Guesses the format from the file name and the first line. */
    static Format detect(Path file) throws IOException {
        try (BufferedReader r = reader(file)) {
            String first = r.readLine();
            if (first == null || first.trim().startsWith("{")) {
                return Format.NDJSON;
            }
            if (first.startsWith("id,click,hour,")) {
                return Format.AVAZU;
            }
            if (first.startsWith("ip,app,device,os,channel,click_time")) {
                return Format.TALKINGDATA;
            }
            return Format.CSV;
        }
    }

    /** Calls {@code sink} for the first {@code limit} events of the file (0: all), in file order. */
    void forEach(long limit, Consumer<ObjectNode> sink) throws IOException {
        long[] given = {0};
        Consumer<ObjectNode> limited = o -> {
            if (limit <= 0 || given[0] < limit) {
                given[0]++;
                sink.accept(o);
            }
        };
        try (BufferedReader r = reader(file)) {
            String line;
            long n = 0;
            String[] header = null;
            if (format != Format.NDJSON) {
                String h = r.readLine();
                if (h == null) {
                    return;
                }
                header = h.split(",", -1);
            }
            Map<String, Integer> col = new HashMap<>();
            for (int i = 0; header != null && i < header.length; i++) {
                col.put(header[i].trim(), i);
            }
            while ((line = r.readLine()) != null && (limit <= 0 || given[0] < limit)) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                switch (format) {
                    case NDJSON -> limited.accept(ndjson(line, n));
                    case AVAZU -> avazu(line.split(",", -1), col).forEach(limited);
                    case TALKINGDATA -> talkingData(line.split(",", -1), col, n).forEach(limited);
                    case CSV -> limited.accept(mapped(line.split(",", -1), col, n));
                }
            }
        }
    }

    /**
     * As {@link #forEach}, as JSON text: NDJSON lines pass through unparsed (ingest validates
     * them and names any bad line in its answer), other formats are converted.
     */
    void forEachText(long limit, Consumer<String> sink) throws IOException {
        if (format != Format.NDJSON) {
            forEach(limit, o -> sink.accept(o.toString()));
            return;
        }
        long given = 0;
        try (BufferedReader r = reader(file)) {
            String line;
            while ((limit <= 0 || given < limit) && (line = r.readLine()) != null) {
                if (!line.isBlank()) {
                    given++;
                    sink.accept(line);
                }
            }
        }
    }

    private static ObjectNode ndjson(String line, long n) throws IOException {
        var node = JSON.readTree(line);
        if (!(node instanceof ObjectNode o)) {
            throw new IOException("line " + n + ": not a JSON object");
        }
        return o;
    }

    private static List<ObjectNode> avazu(String[] f, Map<String, Integer> col) {
        String id = f[col.get("id")];
        String hour = f[col.get("hour")];
        LocalDateTime h = LocalDateTime.of(2000 + Integer.parseInt(hour.substring(0, 2)), Integer.parseInt(hour.substring(2, 4)),
                Integer.parseInt(hour.substring(4, 6)), Integer.parseInt(hour.substring(6, 8)), 0);
        long spread = Math.floorMod(id.hashCode(), 3_540); // leaves a minute for the click
        long ts = h.toInstant(ZoneOffset.UTC).toEpochMilli() + spread * 1000;
        String site = f[col.get("site_id")];
        ObjectNode imp = JSON.createObjectNode();
        imp.put("type", "impression").put("id", "avazu-" + id).put("ts", ts)
                .put("advertiser", f[col.get("C17")])
                .put("campaign", f[col.get("C14")])
                .put("creative", f[col.get("C15")] + "x" + f[col.get("C16")])
                .put("publisher", AVAZU_APP_SITE.equals(site) ? f[col.get("app_id")] : site)
                .put("zone", "pos" + f[col.get("banner_pos")])
                .put("deviceType", f[col.get("device_type")])
                .put("device", f[col.get("device_id")]);
        List<ObjectNode> out = new ArrayList<>(2);
        out.add(imp);
        if ("1".equals(f[col.get("click")])) {
            ObjectNode click = JSON.createObjectNode();
            click.put("type", "click").put("id", "avazu-" + id + "-click").put("ts", ts + 1000 + Math.floorMod(id.hashCode(), 50) * 1000L)
                    .put("impressionId", "avazu-" + id);
            out.add(click);
        }
        return out;
    }

    private static List<ObjectNode> talkingData(String[] f, Map<String, Integer> col, long line) {
        long ts = time(f[col.get("click_time")]) + Math.floorMod(line, 60) * 1000;
        String id = "td-" + line;
        ObjectNode imp = JSON.createObjectNode();
        imp.put("type", "impression").put("id", id).put("ts", ts)
                .put("advertiser", "app" + f[col.get("app")])
                .put("publisher", "ch" + f[col.get("channel")])
                .put("deviceType", "dev" + f[col.get("device")])
                .put("device", f[col.get("ip")] + ":" + f[col.get("device")] + ":" + f[col.get("os")]);
        ObjectNode click = JSON.createObjectNode();
        click.put("type", "click").put("id", id + "-click").put("ts", ts).put("impressionId", id);
        List<ObjectNode> out = new ArrayList<>(3);
        out.add(imp);
        out.add(click);
        String attributed = f[col.get("attributed_time")];
        if ("1".equals(f[col.get("is_attributed")]) && !attributed.isBlank()) {
            ObjectNode conv = JSON.createObjectNode();
            conv.put("type", "conversion").put("id", id + "-conversion").put("ts", Math.max(ts, time(attributed)))
                    .put("impressionId", id);
            out.add(conv);
        }
        return out;
    }

    private ObjectNode mapped(String[] f, Map<String, Integer> col, long line) throws IOException {
        ObjectNode o = JSON.createObjectNode();
        constants.forEach(o::put);
        for (var m : map.entrySet()) {
            Integer i = col.get(m.getValue());
            if (i == null) {
                throw new IOException("--map " + m.getKey() + "=" + m.getValue() + ": no such column; the header has "
                        + Arrays.toString(col.keySet().toArray()));
            }
            String v = i < f.length ? f[i] : "";
            if (v.isEmpty()) {
                continue;
            }
            if (m.getKey().equals("ts")) {
                o.put("ts", time(v));
            } else if (v.matches("-?\\d{1,18}") && (m.getKey().endsWith("Micros"))) {
                o.put(m.getKey(), Long.parseLong(v));
            } else {
                o.put(m.getKey(), v);
            }
        }
        if (!o.has("id")) {
            o.put("id", "line-" + line);
        }
        return o;
    }

    /** Epoch millis of a time value: digits (millis), ISO-8601 with offset, or a UTC date-time. */
    static long time(String v) {
        String s = v.trim();
        if (s.matches("\\d{1,15}")) {
            return Long.parseLong(s);
        }
        if (s.endsWith("Z") || s.matches(".*[+-]\\d\\d:\\d\\d$")) {
            return OffsetDateTime.parse(s).toInstant().toEpochMilli();
        }
        if (s.matches("\\d{4}-\\d{1,2}-\\d{1,2}")) {
            return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        }
        return LocalDateTime.parse(s.replace('T', ' '), LOOSE).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    /** Epoch millis of an event's time field (millis or ISO text), or null when absent or unreadable. */
    static Long tsOf(ObjectNode o, String field) {
        var ts = o.get(field);
        if (ts == null || ts.isNull()) {
            return null;
        }
        if (ts.isIntegralNumber()) {
            return ts.asLong();
        }
        try {
            return Instant.from(OffsetDateTime.parse(ts.asText())).toEpochMilli();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static BufferedReader reader(Path file) throws IOException {
        InputStream in = Files.newInputStream(file);
        if (file.getFileName().toString().endsWith(".gz")) {
            in = new GZIPInputStream(in, 1 << 16);
        }
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
    }
}
