package io.adreport.client.replay;

import io.adreport.client.cli.Args;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Command-line options of {@code replay}, validated with messages naming the flag.
 *
 * @param file        the events file
 * @param url         ingest base URL
 * @param rate        events per second, 0 = as fast as ingest answers
 * @param batch       events per request (1..10,000)
 * @param concurrency requests in flight
 * @param format      input format, or null to detect it
 * @param shiftToNow  move every event time by the same amount so that the newest is now
 * @param timeField   the event time field (to shift); {@code ts} for the ads cube
 * @param limit       stop after this many events, 0 = all
 * @param map         csv: event field → column
 * @param constants   csv: event field → constant value
 * @param help        print usage
 */
record ReplayOptions(Path file, String url, double rate, int batch, int concurrency, EventSource.Format format,
                     boolean shiftToNow, String timeField, long limit, Map<String, String> map,
                     Map<String, String> constants, boolean help) {

    static final String USAGE = """
            usage: adreport replay FILE [options]
              Posts the events of FILE to an aggregator's ingest endpoint, with a progress bar.
              FILE: NDJSON (one event per line, .gz accepted), or CSV:
                avazu        Avazu CTR rows: an impression per row, plus a click where click=1
                talkingdata  TalkingData rows: an impression and its click per row, plus a
                             conversion where is_attributed=1
                csv          any CSV with a header, mapped with --map/--constant
            options:
              --url URL          ingest base URL (default http://localhost:8081)
              --rate N           events per second (default: as fast as ingest answers)
              --batch N          events per request, 1..10000 (default 1000)
              --concurrency N    requests in flight (default 4)
              --format F         ndjson|avazu|talkingdata|csv (default: detected from the first line)
              --shift-to-now     shift all event times so that the newest is now; historical
                                 data is otherwise rejected as older than the accept window
              --time-field F     event time field to shift (default ts)
              --limit N          stop after N events
              --map F=COL[,..]   csv: take event field F from column COL (repeatable)
              --constant F=V[,..]
                                 csv: event field F is V on every event (e.g. type=impression);
                                 formerly --set (renamed: --set means a setting override elsewhere)
            failures: 429, 502, 503, 504 and no answer are retried for up to 5 minutes; any other
              5xx up to 10 times (~40 s); a 4xx fails its batch only. A batch given up stops the
              replay, naming the status and the server's message.
            exit status: 0 all batches answered, 1 some batches failed or the replay stopped,
              2 usage error""";

    static ReplayOptions parse(List<String> argv) {
        Args args = Args.parse(argv, Set.of("url", "rate", "batch", "concurrency", "format", "time-field", "limit", "map", "constant"),
                Set.of("shift-to-now", "help"));
        if (!args.sets().isEmpty()) {
            throw new IllegalArgumentException(
                    "--set: renamed to --constant F=V (a constant event field); --set means a setting override in the other commands");
        }
        boolean help = args.has("help");
        if (args.positionals().size() > 1) {
            throw new IllegalArgumentException("one FILE only, got " + String.join(" and ", args.positionals()));
        }
        Path file = args.positionals().isEmpty() ? null : Path.of(args.positionals().get(0));
        String url = args.flag("url", "http://localhost:8081").replaceAll("/+$", "");
        double rate = args.flag("rate") == null ? 0 : number(args.flag("rate"), "--rate", 1, 10_000_000);
        int batch = args.flag("batch") == null ? 1000 : (int) number(args.flag("batch"), "--batch", 1, 10_000);
        int concurrency = args.flag("concurrency") == null ? 4 : (int) number(args.flag("concurrency"), "--concurrency", 1, 256);
        EventSource.Format format = null;
        if (args.flag("format") != null) {
            try {
                format = EventSource.Format.valueOf(args.flag("format").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--format: must be ndjson, avazu, talkingdata or csv, not '" + args.flag("format") + "'");
            }
        }
        long limit = args.flag("limit") == null ? 0 : (long) number(args.flag("limit"), "--limit", 1, Long.MAX_VALUE);
        Map<String, String> map = new LinkedHashMap<>();
        args.values("map").forEach(v -> pairs(v, "--map", map));
        Map<String, String> constants = new LinkedHashMap<>();
        args.values("constant").forEach(v -> pairs(v, "--constant", constants));
        if (file == null && !help) {
            throw new IllegalArgumentException("FILE is required");
        }
        if (format == EventSource.Format.CSV && map.isEmpty()) {
            throw new IllegalArgumentException("--format csv needs --map field=column (at least the time field)");
        }
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            throw new IllegalArgumentException("--url: must start with http:// or https://, not '" + url + "'");
        }
        return new ReplayOptions(file, url, rate, batch, concurrency, format, args.has("shift-to-now"), args.flag("time-field", "ts"),
                limit, Map.copyOf(map), Map.copyOf(constants), help);
    }

    private static double number(String v, String flag, double min, double max) {
        try {
            double d = Double.parseDouble(v);
            if (d < min || d > max) {
                throw new IllegalArgumentException(flag + ": must be between " + (long) min + " and " + (long) max + ", not " + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": must be a number, not '" + v + "'");
        }
    }

    private static void pairs(String v, String flag, Map<String, String> into) {
        for (String p : v.split(",")) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(flag + ": expects field=value pairs, not '" + p + "'");
            }
            into.put(p.substring(0, eq).trim(), p.substring(eq + 1).trim());
        }
    }
}
